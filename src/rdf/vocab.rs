//! The RDF vocabulary ihigraph writes: every namespace, class, property and individual
//! as a documented constant, so that the mapper never spells an IRI by hand and a test
//! can check each of them against `ontology/*.ttl`.

use oxrdf::NamedNodeRef;

macro_rules! terms {
    ($(#[$module_doc:meta])* $module:ident, $ns:literal, { $($(#[$doc:meta])* $name:ident = $local:literal,)* }) => {
        $(#[$module_doc])*
        pub mod $module {
            use super::NamedNodeRef;
            /// The namespace IRI.
            pub const NAMESPACE: &str = $ns;
            $(
                $(#[$doc])*
                pub const $name: NamedNodeRef<'static> =
                    NamedNodeRef::new_unchecked(concat!($ns, $local));
            )*
            /// Every term of this namespace that ihigraph writes.
            pub const ALL: &[NamedNodeRef<'static>] = &[$($name),*];
        }
    };
}

terms!(
    /// The Conversation History Ontology (`ch:`), from the jidoka design.
    ch, "https://jido.ai/ontology/conversation-history#", {
    /// A sequence of turns within one work session: one PGM-IHI session.
    CONVERSATION = "Conversation",
    /// One turn of a conversation.
    CONVERSATION_TURN = "ConversationTurn",
    /// The prompt of a turn (PGM-IHI `PRCPrompt`).
    PROMPT = "Prompt",
    /// The answer of a turn (PGM-IHI `BKNResponse`).
    ANSWER = "Answer",
    /// One call of a tool requested in a turn's response.
    TOOL_INVOCATION = "ToolInvocation",
    /// The outcome of a tool invocation.
    TOOL_RESULT = "ToolResult",
    /// Conversation -> `jido:WorkSession`.
    ASSOCIATED_WITH_SESSION = "associatedWithSession",
    /// Conversation -> turn.
    HAS_TURN = "hasTurn",
    /// Turn -> conversation, the inverse of `ch:hasTurn`.
    PART_OF_CONVERSATION = "partOfConversation",
    /// Turn -> prompt.
    HAS_PROMPT = "hasPrompt",
    /// Turn -> answer.
    HAS_ANSWER = "hasAnswer",
    /// Turn -> tool invocation.
    INVOLVES_TOOL_INVOCATION = "involvesToolInvocation",
    /// Tool invocation -> tool result.
    HAS_RESULT = "hasResult",
    /// Tool invocation -> the tool.
    USES_TOOL = "usesTool",
    /// Text of a prompt.
    PROMPT_TEXT = "promptText",
    /// Text of an answer.
    ANSWER_TEXT = "answerText",
    /// Arguments of a tool invocation, as JSON text.
    INVOCATION_PARAMETERS = "invocationParameters",
    /// Data returned by a tool.
    RESULT_DATA = "resultData",
    /// When something happened, as `xsd:dateTime`.
    TIMESTAMP = "timestamp",
    /// Zero-based position of a turn.
    TURN_INDEX = "turnIndex",
    /// Name of the invoked tool.
    TOOL_NAME = "toolName",
});

terms!(
    /// The ihigraph extension of `ch:` (`ihi:`): whatever a PGM-IHI document holds that
    /// `ch:` has no home for.
    ihi, "https://w3id.org/ihigraph/ontology#", {
    /// A PGM-IHI role (`A-User`, `H-User`, `BKN`).
    ROLE = "Role",
    /// The autonomous agent role.
    A_USER = "A-User",
    /// The human user role.
    H_USER = "H-User",
    /// The Basic Knowledge (language model) role.
    BKN = "BKN",
    /// An MPAI OSD Simple Time.
    SIMPLE_TIME = "SimpleTime",
    /// One segment of a Simple Time's `SimpleTimeData`.
    TIME_SEGMENT = "TimeSegment",
    /// A Simple Time unit.
    TIME_UNIT = "TimeUnit",
    /// Seconds.
    SECOND = "Second",
    /// Milliseconds.
    MILLISECOND = "Millisecond",
    /// Microseconds.
    MICROSECOND = "Microsecond",
    /// Nanoseconds.
    NANOSECOND = "Nanosecond",
    /// A PGM-IHI `UserEntityState`.
    USER_ENTITY_STATE = "UserEntityState",
    /// A PGM-IHI `AUCInstruction`.
    AUC_INSTRUCTION = "AUCInstruction",
    /// MPAI-PTF Data Exchange Metadata.
    DATA_EXCHANGE_METADATA = "DataExchangeMetadata",
    /// A tool that tool invocations use.
    TOOL = "Tool",
    /// Turn -> `true` when its response has not come yet (`BKNResponse` is `{}`).
    AWAITS_RESPONSE = "awaitsResponse",
    /// PGM-IHI `Header` (also the DEM's and Simple Time's).
    HEADER = "header",
    /// PGM-IHI `SessionID`.
    SESSION_ID = "sessionId",
    /// PGM-IHI `MInstanceID`.
    M_INSTANCE_ID = "mInstanceId",
    /// PGM-IHI `UEnvironmentID`.
    U_ENVIRONMENT_ID = "uEnvironmentId",
    /// PGM-IHI `TurnCount`.
    TURN_COUNT = "turnCount",
    /// PGM-IHI `DescrMetadata`.
    DESCRIPTIVE_METADATA = "descriptiveMetadata",
    /// Conversation -> its `SessionStartTime`.
    SESSION_START_TIME = "sessionStartTime",
    /// Turn -> its `Timestamp`.
    TURN_TIMESTAMP = "turnTimestamp",
    /// Turn -> role.
    ROLE_PROPERTY = "role",
    /// Turn -> user entity state.
    HAS_USER_ENTITY_STATE = "hasUserEntityState",
    /// Turn -> the AUC instruction that triggered it.
    TRIGGERED_BY_INSTRUCTION = "triggeredByInstruction",
    /// Conversation -> data exchange metadata.
    HAS_DATA_EXCHANGE_METADATA = "hasDataExchangeMetadata",
    /// DEM `DataID`.
    DATA_ID = "dataId",
    /// DEM `DataType`.
    DATA_TYPE = "dataType",
    /// DEM `DataExchangeMetadataID`.
    DATA_EXCHANGE_METADATA_ID = "dataExchangeMetadataId",
    /// DEM `DataExchangeMetadataTime`.
    DATA_EXCHANGE_METADATA_TIME = "dataExchangeMetadataTime",
    /// DEM `Source`: an AIM identifier.
    SOURCE_AIM_ID = "sourceAimId",
    /// DEM `Source`: an implementer AIM identifier.
    SOURCE_IMPLEMENTER_AIM_ID = "sourceImplementerAimId",
    /// DEM `Confidence`.
    CONFIDENCE = "confidence",
    /// Simple Time `SimpleTimeID`.
    SIMPLE_TIME_ID = "simpleTimeId",
    /// Simple Time -> segment.
    HAS_TIME_SEGMENT = "hasTimeSegment",
    /// Position of a segment in `SimpleTimeData`.
    SEGMENT_INDEX = "segmentIndex",
    /// Simple Time `FlagsByte`.
    FLAGS_BYTE = "flagsByte",
    /// Whether a segment is absolute (Unix epoch) rather than relative.
    IS_ABSOLUTE_TIME = "isAbsoluteTime",
    /// Segment -> its unit.
    TIME_UNIT_PROPERTY = "timeUnit",
    /// `StartTime` as an offset in the segment's unit.
    START_OFFSET = "startOffset",
    /// `EndTime` as an offset in the segment's unit.
    END_OFFSET = "endOffset",
    /// `StartTime` of an absolute segment as `xsd:dateTime`.
    START_TIME = "startTime",
    /// `EndTime` of an absolute segment as `xsd:dateTime`.
    END_TIME = "endTime",
    /// `AccuracyMode`.
    ACCURACY_MODE = "accuracyMode",
    /// `AccuracyPlusMinus`.
    ACCURACY_PLUS_MINUS = "accuracyPlusMinus",
    /// `AccuracyStartPlusMinus`.
    ACCURACY_START_PLUS_MINUS = "accuracyStartPlusMinus",
    /// `AccuracyEndPlusMinus`.
    ACCURACY_END_PLUS_MINUS = "accuracyEndPlusMinus",
    /// Name of an AUC instruction, by the documented rule.
    INSTRUCTION_NAME = "instructionName",
    /// Provider call id of a tool invocation or result.
    CALL_ID = "callId",
    /// Whether a tool result reports an error.
    IS_ERROR = "isError",
    /// The verbatim JSON text of a payload, as an `xsd:string` literal.
    RAW_JSON = "rawJson",
    /// Conversation -> the JSON digest of its newest turns, as `recent-turns` gives them:
    /// derived data, kept in the session's derived graph, never in its session graph.
    RECENT_TURNS = "recentTurns",
    /// A graph of the inferred store -> the digest of the fingerprint record of the
    /// session it was reasoned from (store/inference.rs).
    REASONED_FROM = "reasonedFrom",
    /// Conversation -> a tool one of its turns invoked (inferred, by a property chain).
    USED_TOOL = "usedTool",
    /// Conversation -> a PROV agent one of its turns was associated with (inferred).
    INVOLVED_AGENT = "involvedAgent",
    /// Branch conversation -> the conversation it branches off (a sub-property of
    /// `prov:wasDerivedFrom`).
    BRANCH_OF = "branchOf",
    /// Branch conversation -> the `SessionID` of the session it branches off, readable
    /// when that session is no longer stored.
    BRANCH_OF_SESSION_ID = "branchOfSessionId",
    /// Branch conversation -> the parent's turn after which it forked (a sub-property of
    /// `prov:wasInfluencedBy`).
    FORKED_AFTER_TURN = "forkedAfterTurn",
    /// Branch conversation -> the index of that turn.
    FORKED_AFTER_TURN_INDEX = "forkedAfterTurnIndex",
    /// `TurnCount` as written, when that is not the canonical integer (`2.0`, `1e1`).
    RAW_TURN_COUNT = "rawTurnCount",
    /// `TurnIndex` as written, when that is not the canonical integer.
    RAW_TURN_INDEX = "rawTurnIndex",
    /// Store settings: the IRI base.
    IRI_BASE = "iriBase",
    /// Store settings: the work-session IRI template.
    SESSION_IRI_TEMPLATE = "sessionIriTemplate",
    /// Store settings: the subject of the store's own settings, in the default graph.
    STORE_SETTINGS = "storeSettings",
    /// Store settings: the digest of the ontologies stored beside the sessions.
    ONTOLOGY_DIGEST = "ontologyDigest",
    /// Store settings: how long a session is kept after its last turn (an
    /// `xsd:dayTimeDuration`).
    RETENTION_PERIOD = "retentionPeriod",
    /// Fingerprint record (subject: a session graph) -> the session's `SessionID`.
    FINGERPRINTED_SESSION = "fingerprintedSession",
    /// Fingerprint record -> SHA-256 of the graph's RDFC-1.0 canonical N-Quads.
    FINGERPRINT = "fingerprint",
    /// Fingerprint record -> how it was taken (`RDFC-1.0/SHA-256`).
    FINGERPRINT_ALGORITHM = "fingerprintAlgorithm",
    /// Fingerprint record -> when it was taken.
    FINGERPRINTED_AT = "fingerprintedAt",
    /// Fingerprint record -> how many quads it covers.
    FINGERPRINT_QUADS = "fingerprintQuads",
    /// Fingerprint record -> its lines by predicate (`COUNT SHA256 IRI` per line).
    FINGERPRINT_MANIFEST = "fingerprintManifest",
    /// A memory item's id (what `forget` takes).
    MEMORY_ID = "memoryId",
    /// What a memory item says.
    MEMORY_TEXT = "memoryText",
    /// From when a memory item holds.
    VALID_FROM = "validFrom",
    /// Until when a memory item holds (exclusive).
    VALID_UNTIL = "validUntil",
    /// Turn -> its model's provider (`gen_ai.provider.name`).
    PROVIDER = "provider",
    /// Turn -> the model asked for (`gen_ai.request.model`).
    REQUEST_MODEL = "requestModel",
    /// Turn -> the model that answered (`gen_ai.response.model`).
    RESPONSE_MODEL = "responseModel",
    /// Turn -> input tokens (`gen_ai.usage.input_tokens`).
    INPUT_TOKENS = "inputTokens",
    /// Turn -> output tokens (`gen_ai.usage.output_tokens`).
    OUTPUT_TOKENS = "outputTokens",
    /// Turn -> a finish reason (`gen_ai.response.finish_reasons`).
    FINISH_REASON = "finishReason",
    /// Turn -> `gen_ai.operation.name`.
    OPERATION_NAME = "operationName",
    /// Turn or tool invocation -> when its span started.
    SPAN_START_TIME = "spanStartTime",
    /// Turn or tool invocation -> when its span ended.
    SPAN_END_TIME = "spanEndTime",
    /// Turn or tool invocation -> its span's duration in milliseconds.
    LATENCY_MS = "latencyMs",
    /// Turn or tool invocation -> an OpenTelemetry trace id.
    TRACE_ID = "traceId",
    /// Turn or tool invocation -> its span id.
    SPAN_ID = "spanId",
    /// Turn or tool invocation -> its span's status code.
    SPAN_STATUS = "spanStatus",
    /// Turn or tool invocation -> its span's status message.
    STATUS_MESSAGE = "statusMessage",
    /// A memory item kept under a namespace and a key (an agent framework's store item).
    KEYED_ITEM = "KeyedItem",
    /// Keyed item -> its namespace, the JSON array of its labels.
    ITEM_NAMESPACE = "itemNamespace",
    /// Keyed item -> its key within its namespace.
    ITEM_KEY = "itemKey",
    /// Keyed item -> its value, the JSON text of an object.
    ITEM_VALUE = "itemValue",
    /// Keyed item -> when it was last put.
    UPDATED_AT = "updatedAt",
    /// Keyed item -> when it expires.
    EXPIRES_AT = "expiresAt",
    /// Keyed item -> how long it lives after it is put or read, in seconds.
    TIME_TO_LIVE = "timeToLive",
});

terms!(
    /// Jido core (`jido:`), for long-term memory.
    jido, "https://jido.ai/ontology#", {
    /// Anything kept in long-term memory.
    MEMORY_ITEM = "MemoryItem",
    /// A work session.
    WORK_SESSION = "WorkSession",
    /// Memory item -> the work session it was asserted in.
    ASSERTED_IN = "assertedIn",
    /// Memory item -> its kind of source.
    HAS_SOURCE_TYPE = "hasSourceType",
    /// Source: a user.
    USER_SOURCE = "UserSource",
    /// Source: an agent.
    AGENT_SOURCE = "AgentSource",
    /// Source: a tool.
    TOOL_SOURCE = "ToolSource",
    /// A memory item: a fact.
    FACT = "Fact",
    /// A memory item: a decision.
    DECISION = "Decision",
    /// A memory item: a lesson learned.
    LESSON_LEARNED = "LessonLearned",
});

terms!(
    /// The Jido core ontology as jidoka publishes it (`jcore:`), whose memory classes
    /// ihigraph writes beside its own, so that queries in either vocabulary find them.
    jcore, "https://jido.ai/ontologies/core#", {
    /// Any memory.
    MEMORY = "Memory",
    /// A fact.
    FACT = "Fact",
    /// A decision.
    DECISION = "Decision",
    /// A lesson learned.
    LESSON_LEARNED = "LessonLearned",
});

terms!(
    /// W3C PROV-O (`prov:`).
    prov, "http://www.w3.org/ns/prov#", {
    /// Something that happened.
    ACTIVITY = "Activity",
    /// A thing with provenance.
    ENTITY = "Entity",
    /// Activity -> entity it used.
    USED = "used",
    /// Entity -> the activity that generated it.
    WAS_GENERATED_BY = "wasGeneratedBy",
    /// Activity -> when it started.
    STARTED_AT_TIME = "startedAtTime",
    /// Entity -> an entity it was derived from.
    WAS_DERIVED_FROM = "wasDerivedFrom",
    /// Entity -> when it was generated.
    GENERATED_AT_TIME = "generatedAtTime",
    /// Entity or activity -> what influenced it.
    WAS_INFLUENCED_BY = "wasInfluencedBy",
});

/// Datatypes and RDF terms used beside the ontology namespaces.
pub mod rdf {
    use super::NamedNodeRef;
    /// `rdf:type`.
    pub const TYPE: NamedNodeRef<'static> = oxrdf::vocab::rdf::TYPE;
    /// `rdfs:label`.
    pub const LABEL: NamedNodeRef<'static> = oxrdf::vocab::rdfs::LABEL;
}

/// The SPARQL 1.1 Service Description vocabulary (`sd:`), in which `serve` describes its
/// endpoint; not ihigraph's own, so outside `ontology/*.ttl`.
pub mod sd {
    use super::NamedNodeRef;
    /// The namespace IRI.
    pub const NAMESPACE: &str = "http://www.w3.org/ns/sparql-service-description#";
    /// `sd:Service`: a SPARQL endpoint.
    pub const SERVICE: NamedNodeRef<'static> =
        NamedNodeRef::new_unchecked("http://www.w3.org/ns/sparql-service-description#Service");
    /// `sd:endpoint`: where the service takes requests.
    pub const ENDPOINT: NamedNodeRef<'static> =
        NamedNodeRef::new_unchecked("http://www.w3.org/ns/sparql-service-description#endpoint");
    /// `sd:supportedLanguage`.
    pub const SUPPORTED_LANGUAGE: NamedNodeRef<'static> = NamedNodeRef::new_unchecked(
        "http://www.w3.org/ns/sparql-service-description#supportedLanguage",
    );
    /// `sd:SPARQL10Query`.
    pub const SPARQL10_QUERY: NamedNodeRef<'static> = NamedNodeRef::new_unchecked(
        "http://www.w3.org/ns/sparql-service-description#SPARQL10Query",
    );
    /// `sd:SPARQL11Query`.
    pub const SPARQL11_QUERY: NamedNodeRef<'static> = NamedNodeRef::new_unchecked(
        "http://www.w3.org/ns/sparql-service-description#SPARQL11Query",
    );
    /// `sd:SPARQL11Update`.
    pub const SPARQL11_UPDATE: NamedNodeRef<'static> = NamedNodeRef::new_unchecked(
        "http://www.w3.org/ns/sparql-service-description#SPARQL11Update",
    );
    /// `sd:resultFormat`: a format answers are given in.
    pub const RESULT_FORMAT: NamedNodeRef<'static> =
        NamedNodeRef::new_unchecked("http://www.w3.org/ns/sparql-service-description#resultFormat");
    /// `sd:inputFormat`: a format the service reads.
    pub const INPUT_FORMAT: NamedNodeRef<'static> =
        NamedNodeRef::new_unchecked("http://www.w3.org/ns/sparql-service-description#inputFormat");
    /// `sd:feature`.
    pub const FEATURE: NamedNodeRef<'static> =
        NamedNodeRef::new_unchecked("http://www.w3.org/ns/sparql-service-description#feature");
    /// `sd:Feature`: the class of features.
    pub const FEATURE_CLASS: NamedNodeRef<'static> =
        NamedNodeRef::new_unchecked("http://www.w3.org/ns/sparql-service-description#Feature");
    /// `sd:UnionDefaultGraph`: a query's default graph is the merge of the named graphs.
    pub const UNION_DEFAULT_GRAPH: NamedNodeRef<'static> = NamedNodeRef::new_unchecked(
        "http://www.w3.org/ns/sparql-service-description#UnionDefaultGraph",
    );
    /// `sd:defaultEntailmentRegime`.
    pub const DEFAULT_ENTAILMENT_REGIME: NamedNodeRef<'static> = NamedNodeRef::new_unchecked(
        "http://www.w3.org/ns/sparql-service-description#defaultEntailmentRegime",
    );
    /// Simple entailment: what a query sees is what is stored, nothing inferred.
    pub const SIMPLE_ENTAILMENT: NamedNodeRef<'static> =
        NamedNodeRef::new_unchecked("http://www.w3.org/ns/entailment/Simple");
}

/// The prefixes of exports, query results and the `ontology` listing.
pub const PREFIXES: &[(&str, &str)] = &[
    ("ch", ch::NAMESPACE),
    ("ihi", ihi::NAMESPACE),
    ("jido", jido::NAMESPACE),
    ("jcore", jcore::NAMESPACE),
    ("prov", prov::NAMESPACE),
    ("xsd", "http://www.w3.org/2001/XMLSchema#"),
    ("rdf", "http://www.w3.org/1999/02/22-rdf-syntax-ns#"),
    ("rdfs", "http://www.w3.org/2000/01/rdf-schema#"),
];

/// [`PREFIXES`], with `id:` standing for a store's IRI base: what exports and results
/// print with.
pub fn prefixes_with_base(base: &str) -> impl Iterator<Item = (&str, &str)> {
    PREFIXES.iter().copied().chain([("id", base)])
}

/// The individual of a PGM-IHI role: the one place where a role meets its IRI.
pub fn role_individual(role: crate::model::Role) -> NamedNodeRef<'static> {
    use crate::model::Role;
    match role {
        Role::AUser => ihi::A_USER,
        Role::HUser => ihi::H_USER,
        Role::Bkn => ihi::BKN,
    }
}

/// The role whose individual is `iri`, if any.
pub fn role_of_individual(iri: NamedNodeRef<'_>) -> Option<crate::model::Role> {
    crate::model::Role::ALL
        .into_iter()
        .find(|role| role_individual(*role) == iri)
}
