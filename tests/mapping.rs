//! The mapping against its contract: an expected dataset, determinism, lossless payloads,
//! the entailments the ontology's axioms call for, and a declaration in `ontology/*.ttl`
//! for every term written.
#![allow(clippy::unwrap_used)]

mod common;

use common::{examples_dir, fixture, fixture_path};
use ihigraph::CheckOptions;
use ihigraph::check_document;
use ihigraph::rdf::IriScheme;
use ihigraph::rdf::SessionGraph;
use ihigraph::rdf::map_history;
use ihigraph::rdf::vocab;
use oxigraph::io::{RdfFormat, RdfParser};
use oxrdf::vocab::{rdf, rdfs};
use oxrdf::{Dataset, Graph, NamedNode, NamedOrBlankNode, Quad, Term};
use serde_json::{Value, json};
use std::collections::{BTreeSet, HashMap, HashSet};

/// What only a reasoner writes (`ihigraph reasoning on`, docs/reasoning.md): the mapper
/// writes no statement with these properties nor of these classes, so the axioms that
/// entail them are left to it; every other axiom's entailments the mapper writes itself.
const INFERRED_ONLY: [&str; 10] = [
    "http://www.w3.org/ns/prov#generated",
    "http://www.w3.org/ns/prov#wasAssociatedWith",
    "http://www.w3.org/ns/prov#wasInformedBy",
    "https://w3id.org/ihigraph/ontology#invokedInTurn",
    "https://w3id.org/ihigraph/ontology#resultOf",
    "https://w3id.org/ihigraph/ontology#usedTool",
    "https://w3id.org/ihigraph/ontology#involvedAgent",
    "https://w3id.org/ihigraph/ontology#AgentTurn",
    "https://w3id.org/ihigraph/ontology#HumanTurn",
    "https://w3id.org/ihigraph/ontology#ModelTurn",
];

/// Whether the mapper leaves this term to a reasoner (see [`INFERRED_ONLY`]).
fn inferred_only(term: &NamedNode) -> bool {
    INFERRED_ONLY.contains(&term.as_str())
}

#[test]
fn the_mapper_leaves_what_only_a_reasoner_writes() {
    for document in examples() {
        for quad in map(&document).quads {
            assert!(!inferred_only(&quad.predicate), "{quad}");
            if let Term::NamedNode(class) = &quad.object {
                assert!(
                    quad.predicate != rdf::TYPE || !inferred_only(class),
                    "{quad}"
                );
            }
        }
    }
}

const OWL_INVERSE_OF: oxrdf::NamedNodeRef<'_> =
    oxrdf::NamedNodeRef::new_unchecked("http://www.w3.org/2002/07/owl#inverseOf");

fn map(document: &Value) -> SessionGraph {
    let checked = check_document(document, CheckOptions::default());
    assert!(checked.problems.is_empty(), "{:?}", checked.problems);
    map_history(&checked.history.unwrap(), &IriScheme::default())
}

fn examples() -> Vec<Value> {
    let mut paths: Vec<_> = std::fs::read_dir(examples_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    paths.sort();
    paths
        .iter()
        .map(|p| serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap())
        .collect()
}

fn ontology() -> Graph {
    let mut graph = Graph::new();
    for text in [
        ihigraph::rdf::CONVERSATION_HISTORY_TTL,
        ihigraph::rdf::IHIGRAPH_TTL,
    ] {
        for quad in RdfParser::from_format(RdfFormat::Turtle).for_slice(text.as_bytes()) {
            graph.insert(quad.unwrap().as_ref());
        }
    }
    graph
}

/// A dataset as sophia reads it: the TriG fixture with sophia's own parser, the mapped
/// quads through N-Quads, so that neither side goes through the library that wrote them
/// both.
type SophiaDataset = Vec<sophia_api::quad::Spog<sophia_api::term::SimpleTerm<'static>>>;

#[test]
fn the_complete_fixture_maps_to_the_expected_dataset() {
    use sophia_api::source::QuadSource;
    let session = map(&fixture("valid/complete.json"));
    let expected_text = std::fs::read_to_string(fixture_path("mapping/complete.trig")).unwrap();
    let expected: SophiaDataset = sophia_turtle::parser::trig::parse_str(&expected_text)
        .collect_quads()
        .unwrap();
    let nquads: String = session.quads.iter().map(|q| format!("{q} .\n")).collect();
    let actual: SophiaDataset = sophia_turtle::parser::nq::parse_str(&nquads)
        .collect_quads()
        .unwrap();
    let isomorphic = sophia_isomorphism::isomorphic_datasets(&actual, &expected).unwrap();
    if !isomorphic {
        // Say where: the mapping writes no blank nodes, so the difference is a set one.
        let actual: Dataset = session.quads.iter().collect();
        let expected: Dataset = RdfParser::from_format(RdfFormat::TriG)
            .for_slice(expected_text.as_bytes())
            .collect::<Result<Vec<Quad>, _>>()
            .unwrap()
            .iter()
            .collect();
        let missing: BTreeSet<_> = expected
            .iter()
            .filter(|q| !actual.contains(*q))
            .map(|q| q.to_string())
            .collect();
        let extra: BTreeSet<_> = actual
            .iter()
            .filter(|q| !expected.contains(*q))
            .map(|q| q.to_string())
            .collect();
        panic!("not isomorphic to the fixture\nmissing: {missing:#?}\nextra: {extra:#?}");
    }
    assert_eq!(actual.len(), expected.len());
    // The digest of its newest turns is derived from those quads, and none of them.
    let digest = session.recent_turns.as_ref().unwrap().literal();
    assert_eq!(
        digest.value(),
        r#"{"turnCount":2,"turns":[{"turnIndex":1,"role":"BKN","answerText":"It imports Config."},{"turnIndex":0,"role":"H-User","time":"2026-01-01T08:00:01.5Z","promptText":"Read config.exs, please.","answerText":"Reading it."}]}"#
    );
}

#[test]
fn mapping_is_deterministic_and_uses_one_graph_and_no_blank_nodes() {
    for example in examples() {
        let first = map(&example);
        let second = map(&example);
        assert_eq!(first.quads, second.quads);
        for quad in &first.quads {
            assert_eq!(quad.graph_name, first.graph.clone().into());
            assert!(
                matches!(quad.subject, NamedOrBlankNode::NamedNode(_)),
                "{quad}"
            );
            assert!(!matches!(quad.object, Term::BlankNode(_)), "{quad}");
        }
    }
}

#[test]
fn payloads_are_kept_verbatim_as_rdf_json() {
    let document = fixture("valid/complete.json");
    let session = map(&document);
    let raw_of = |suffix: &str| -> Value {
        let quad = session
            .quads
            .iter()
            .find(|q| {
                q.subject.to_string().ends_with(&format!("{suffix}>"))
                    && q.predicate == vocab::ihi::RAW_JSON
            })
            .unwrap_or_else(|| panic!("no raw JSON on {suffix}"));
        let Term::Literal(literal) = &quad.object else {
            panic!("not a literal")
        };
        assert_eq!(literal.datatype(), oxrdf::vocab::xsd::STRING);
        serde_json::from_str(literal.value()).unwrap()
    };
    assert_eq!(raw_of("turn/0/prompt"), document["Turns"][0]["PRCPrompt"]);
    assert_eq!(raw_of("turn/1/answer"), document["Turns"][1]["BKNResponse"]);
    assert_eq!(
        raw_of("turn/0/user-entity-state"),
        document["Turns"][0]["UserEntityState"]
    );
    assert_eq!(
        raw_of("turn/0/auc-instruction"),
        document["Turns"][0]["AUCInstruction"]
    );
    assert_eq!(raw_of("data-exchange-metadata"), document["DataXMData"]);
    assert_eq!(raw_of("start-time"), document["SessionStartTime"]);
    assert_eq!(
        raw_of("turn/1/timestamp"),
        document["Turns"][1]["Timestamp"]
    );
    // The number keeps every digit, trailing zeros included.
    let answer = raw_of("turn/1/answer");
    assert_eq!(answer["score"].to_string(), "12345678901234567890123.4500");
}

#[test]
fn odd_session_ids_give_valid_iris_that_round_trip_through_n_quads() {
    let document = fixture("valid/complete.json");
    for id in ["a\"b>c}d\ne#f", "", "..", "セッション 🌸", "%41", "x/y?z"] {
        let mut odd = document.clone();
        odd["SessionID"] = json!(id);
        let session = map(&odd);
        let mut text = Vec::new();
        let mut serializer =
            oxigraph::io::RdfSerializer::from_format(RdfFormat::NQuads).for_writer(&mut text);
        for quad in &session.quads {
            serializer.serialize_quad(quad).unwrap();
        }
        serializer.finish().unwrap();
        let parsed: Vec<Quad> = RdfParser::from_format(RdfFormat::NQuads)
            .for_slice(&text)
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(parsed, session.quads, "{id:?}");
        let id_literal = session
            .quads
            .iter()
            .find(|q| q.predicate == vocab::ihi::SESSION_ID)
            .unwrap();
        assert_eq!(
            id_literal.object,
            Term::Literal(oxrdf::Literal::new_simple_literal(id))
        );
    }
}

#[test]
fn different_session_ids_never_share_a_graph() {
    let document = fixture("valid/complete.json");
    let graphs: HashSet<_> = ["a/b", "a%2Fb", "a b", "a+b", "A"]
        .iter()
        .map(|id| {
            let mut other = document.clone();
            other["SessionID"] = json!(id);
            map(&other).graph
        })
        .collect();
    assert_eq!(graphs.len(), 5);
}

#[test]
fn both_ontologies_parse_with_oxigraph() {
    for (name, text) in [
        (
            "conversation-history.ttl",
            ihigraph::rdf::CONVERSATION_HISTORY_TTL,
        ),
        ("ihigraph.ttl", ihigraph::rdf::IHIGRAPH_TTL),
    ] {
        let triples = RdfParser::from_format(RdfFormat::Turtle)
            .for_slice(text.as_bytes())
            .collect::<Result<Vec<_>, _>>()
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(!triples.is_empty(), "{name}");
    }
}

/// Terms the ontologies declare: anything with an `rdf:type`.
fn declared(ontology: &Graph) -> HashSet<NamedNode> {
    ontology
        .triples_for_predicate(rdf::TYPE)
        .filter_map(|t| match t.subject {
            oxrdf::NamedOrBlankNodeRef::NamedNode(node) => Some(node.into_owned()),
            oxrdf::NamedOrBlankNodeRef::BlankNode(_) => None,
        })
        .collect()
}

#[test]
fn every_term_the_mapper_can_write_is_declared() {
    let declared = declared(&ontology());
    for term in vocab::ch::ALL
        .iter()
        .chain(vocab::ihi::ALL)
        .chain(vocab::jido::ALL)
        .chain(vocab::jcore::ALL)
        .chain(vocab::prov::ALL)
    {
        assert!(
            declared.contains(&term.into_owned()),
            "{term} is not declared"
        );
    }
    let ours = [
        vocab::ch::NAMESPACE,
        vocab::ihi::NAMESPACE,
        vocab::jido::NAMESPACE,
        vocab::prov::NAMESPACE,
    ];
    let is_ours = |iri: &str| {
        ours.iter().any(|ns| iri.starts_with(ns))
            && !iri.starts_with("https://jido.ai/ontology#session_")
    };
    let mut documents = examples();
    documents.push(fixture("valid/complete.json"));
    for document in documents {
        for quad in map(&document).quads {
            if quad.predicate != rdf::TYPE && quad.predicate != rdfs::LABEL {
                assert!(
                    declared.contains(&quad.predicate),
                    "{} is not declared",
                    quad.predicate
                );
            }
            if let Term::NamedNode(object) = &quad.object
                && is_ours(object.as_str())
            {
                assert!(declared.contains(object), "{object} is not declared");
            }
        }
    }
}

#[test]
fn the_entailments_of_the_ontology_axioms_are_written() {
    let ontology = ontology();
    let mut superclasses: HashMap<NamedNode, Vec<NamedNode>> = HashMap::new();
    for triple in ontology.triples_for_predicate(rdfs::SUB_CLASS_OF) {
        if let (oxrdf::NamedOrBlankNodeRef::NamedNode(sub), oxrdf::TermRef::NamedNode(sup)) =
            (triple.subject, triple.object)
        {
            superclasses
                .entry(sub.into_owned())
                .or_default()
                .push(sup.into_owned());
        }
    }
    let inverses: Vec<(NamedNode, NamedNode)> = ontology
        .triples_for_predicate(OWL_INVERSE_OF)
        .filter_map(|t| match (t.subject, t.object) {
            (oxrdf::NamedOrBlankNodeRef::NamedNode(p), oxrdf::TermRef::NamedNode(q)) => {
                Some((p.into_owned(), q.into_owned()))
            }
            _ => None,
        })
        .collect();
    assert!(!inverses.is_empty());
    for document in examples() {
        let quads: HashSet<_> = map(&document).quads.into_iter().collect();
        let has = |s: &NamedOrBlankNode, p: &NamedNode, o: &Term, g: &oxrdf::GraphName| {
            quads.contains(&Quad::new(s.clone(), p.clone(), o.clone(), g.clone()))
        };
        let mut checked_types = 0;
        for quad in &quads {
            if quad.predicate == rdf::TYPE
                && let Term::NamedNode(class) = &quad.object
            {
                let mut pending = vec![class.clone()];
                while let Some(class) = pending.pop() {
                    for sup in superclasses.get(&class).into_iter().flatten() {
                        assert!(
                            has(
                                &quad.subject,
                                &rdf::TYPE.into_owned(),
                                &sup.clone().into(),
                                &quad.graph_name
                            ),
                            "{} lacks type {sup}",
                            quad.subject
                        );
                        checked_types += 1;
                        pending.push(sup.clone());
                    }
                }
            }
            for (p, q) in &inverses {
                if inferred_only(p) || inferred_only(q) {
                    continue;
                }
                for (forward, backward) in [(p, q), (q, p)] {
                    if quad.predicate == *forward
                        && let Term::NamedNode(object) = &quad.object
                    {
                        assert!(
                            has(
                                &object.clone().into(),
                                backward,
                                &quad.subject.clone().into(),
                                &quad.graph_name
                            ),
                            "{quad} lacks its inverse {backward}"
                        );
                    }
                }
            }
        }
        assert!(checked_types > 0);
    }
}

#[test]
fn a_tool_result_without_its_call_is_kept_and_warned_about() {
    let mut document = fixture("valid/complete.json");
    document["Turns"][1]["PRCPrompt"]["messages"][0]["content"][0]["tool_use_id"] =
        json!("toolu_missing");
    let session = map(&document);
    assert_eq!(session.warnings.len(), 1);
    assert_eq!(session.warnings[0].pointer, "/Turns/1/PRCPrompt");
    assert!(session.warnings[0].message.contains("toolu_missing"));
    assert!(
        session
            .quads
            .iter()
            .any(|q| q.object == Term::NamedNode(vocab::ch::TOOL_RESULT.into_owned()))
    );
    assert!(
        !session
            .quads
            .iter()
            .any(|q| q.predicate == vocab::ch::HAS_RESULT)
    );
}

#[test]
fn results_repeated_in_later_prompts_are_recorded_once() {
    let examples = examples();
    let trip = examples
        .iter()
        .find(|d| d["SessionID"] == "trip-kyoto-2026")
        .unwrap();
    let session = map(trip);
    let results = session
        .quads
        .iter()
        .filter(|q| q.predicate == vocab::ch::HAS_RESULT)
        .count();
    // get_weather and search_trains (answered in turn 1), book_train (turn 3); the
    // later prompts repeat the whole history.
    assert_eq!(results, 3);
    assert!(session.warnings.is_empty(), "{:?}", session.warnings);
}

/// A benchmark log that uses a call id again for a newer call whose result reads the same
/// (a `think` tool answers "" each time): each call gets its result.
#[test]
fn a_call_id_used_again_with_the_same_result_is_answered_anew() {
    let call = |id: &str| {
        json!({"role": "assistant", "content": null, "tool_calls": [
            {"id": id, "type": "function", "function": {"name": "think", "arguments": "{}"}}]})
    };
    let result = |id: &str| json!({"role": "tool", "tool_call_id": id, "content": ""});
    let mut document = fixture("valid/complete.json");
    let turn = document["Turns"][0].clone();
    let prompts = [
        json!({"messages": [{"role": "user", "content": "Plan it."}]}),
        json!({"messages": [result("call_1")]}),
        json!({"messages": [result("call_1")]}),
    ];
    let responses = [
        call("call_1"),
        call("call_1"),
        json!({"role": "assistant", "content": "Done."}),
    ];
    let turns: Vec<Value> = prompts
        .into_iter()
        .zip(responses)
        .enumerate()
        .map(|(index, (prompt, response))| {
            let mut turn = turn.clone();
            turn["TurnIndex"] = json!(index);
            turn["Role"] = json!(if index == 0 { "H-User" } else { "A-User" });
            turn["PRCPrompt"] = prompt;
            turn["BKNResponse"] = response;
            turn
        })
        .collect();
    document["TurnCount"] = json!(turns.len());
    document["Turns"] = json!(turns);
    let session = map(&document);
    let links = session
        .quads
        .iter()
        .filter(|q| q.predicate == vocab::ch::HAS_RESULT)
        .count();
    assert_eq!(links, 2, "both calls answered");
    assert!(session.warnings.is_empty(), "{:?}", session.warnings);
}

#[test]
fn every_quad_is_written_once() {
    // A tool called in several turns is declared once.
    let mut documents: Vec<Value> = std::fs::read_dir(examples_dir())
        .unwrap()
        .map(|entry| {
            serde_json::from_str(&std::fs::read_to_string(entry.unwrap().path()).unwrap()).unwrap()
        })
        .collect();
    documents.push(fixture("valid/complete.json"));
    for document in documents {
        let history = check_document(&document, CheckOptions::default())
            .history
            .unwrap();
        let graph = map_history(&history, &IriScheme::default());
        let unique: HashSet<_> = graph.quads.iter().collect();
        assert_eq!(unique.len(), graph.quads.len(), "{}", graph.session_id);
    }
}

#[test]
fn texts_with_characters_xml_forbids_are_kept_and_reported() {
    let mut document = fixture("valid/complete.json");
    document["Turns"][0]["PRCPrompt"] =
        json!({"messages": [{"role": "user", "content": "ring \u{7} the bell"}]});
    let history = check_document(&document, CheckOptions::default())
        .history
        .unwrap();
    let session = map_history(&history, &IriScheme::default());
    let texts: Vec<&str> = session
        .quads
        .iter()
        .filter(|q| q.predicate == vocab::ch::PROMPT_TEXT)
        .filter_map(|q| match &q.object {
            Term::Literal(literal) => Some(literal.value()),
            _ => None,
        })
        .collect();
    assert!(texts.contains(&"ring \u{7} the bell"), "{texts:?}");
    let warning = session
        .warnings
        .iter()
        .find(|w| w.message.contains("U+0007"))
        .unwrap_or_else(|| panic!("no warning: {:?}", session.warnings));
    assert!(warning.message.contains("turn/0/prompt"), "{warning:?}");
    assert!(warning.message.contains("promptText"), "{warning:?}");
}

/// Every sub-property the ontology states is written with its super-property.
fn assert_sub_properties_entailed(graph: &SessionGraph) {
    let ontology = ontology();
    let quads: HashSet<&Quad> = graph.quads.iter().collect();
    for axiom in ontology.triples_for_predicate(rdfs::SUB_PROPERTY_OF) {
        let (oxrdf::NamedOrBlankNodeRef::NamedNode(sub), oxrdf::TermRef::NamedNode(sup)) =
            (axiom.subject, axiom.object)
        else {
            continue;
        };
        if inferred_only(&sup.into_owned()) {
            continue;
        }
        for quad in graph.quads.iter().filter(|q| q.predicate == sub) {
            let entailed = Quad::new(
                quad.subject.clone(),
                sup.into_owned(),
                quad.object.clone(),
                quad.graph_name.clone(),
            );
            assert!(quads.contains(&entailed), "{quad} lacks {sup}");
        }
    }
}

/// The trip-planning example as a branch of `parent`, and its session graph.
fn branch_document(annotation: &Value) -> (Value, SessionGraph) {
    let mut document: Value = serde_json::from_str(
        &std::fs::read_to_string(examples_dir().join("trip-planning.json")).unwrap(),
    )
    .unwrap();
    document["SessionID"] = json!("parent/branch/u7");
    document["DataXMData"]["Annotations"] = json!([annotation.clone()]);
    let graph = map(&document);
    (document, graph)
}

#[test]
fn a_branch_link_maps_to_prov_links_to_the_parent_and_rebuilds() {
    let link = ihigraph::model::BranchOf {
        session_id: "parent".to_owned(),
        after_turn: Some(3),
    };
    let (document, graph) = branch_document(&link.annotation());
    assert!(graph.warnings.is_empty(), "{:?}", graph.warnings);
    let scheme = IriScheme::default();
    let branch = scheme.conversation("parent/branch/u7");
    let parent = scheme.conversation("parent");
    let turn = NamedNode::new(format!("{}/turn/3", parent.as_str())).unwrap();
    let objects = |predicate: oxrdf::NamedNodeRef<'_>| -> Vec<Term> {
        graph
            .quads
            .iter()
            .filter(|q| q.subject == branch.clone().into() && q.predicate == predicate)
            .map(|q| q.object.clone())
            .collect()
    };
    let parent_term: Term = parent.clone().into();
    let turn_term: Term = turn.into();
    assert_eq!(
        objects(vocab::ihi::BRANCH_OF),
        std::slice::from_ref(&parent_term)
    );
    assert_eq!(objects(vocab::prov::WAS_DERIVED_FROM), [parent_term]);
    assert_eq!(
        objects(vocab::ihi::FORKED_AFTER_TURN),
        std::slice::from_ref(&turn_term)
    );
    assert_eq!(objects(vocab::prov::WAS_INFLUENCED_BY), [turn_term]);
    assert_eq!(
        objects(vocab::ihi::BRANCH_OF_SESSION_ID),
        [Term::from(oxrdf::Literal::new_simple_literal("parent"))]
    );
    assert_eq!(
        objects(vocab::ihi::FORKED_AFTER_TURN_INDEX),
        [Term::from(oxrdf::Literal::new_typed_literal(
            "3",
            oxrdf::vocab::xsd::INTEGER
        ))]
    );
    assert_sub_properties_entailed(&graph);
    // Before the first turn: no turn is named.
    let (_, before) = branch_document(
        &ihigraph::model::BranchOf {
            session_id: "parent".to_owned(),
            after_turn: None,
        }
        .annotation(),
    );
    assert!(
        before
            .quads
            .iter()
            .any(|q| q.predicate == vocab::ihi::BRANCH_OF)
            && !before
                .quads
                .iter()
                .any(|q| q.predicate == vocab::ihi::FORKED_AFTER_TURN)
    );
    // The link comes back with the document: the DEM is kept verbatim.
    let triples: Graph = graph
        .quads
        .iter()
        .map(|q| oxrdf::TripleRef::from(q.as_ref()))
        .collect();
    let rebuilt = ihigraph::rdf::rebuild_history(&triples, &graph.graph, &scheme).unwrap();
    assert_eq!(serde_json::to_value(&rebuilt).unwrap(), document);
    assert_eq!(
        rebuilt.data_exchange_metadata.branch_of().unwrap(),
        Some(link)
    );
}

#[test]
fn a_broken_branch_link_is_left_out_with_a_warning_saying_where() {
    let (_, graph) = branch_document(&json!({"Annotation": {
        "AnnotationID": ihigraph::model::BRANCH_ANNOTATION_ID,
        "Annotation": [{"AnnotationJSONText": "{\"BranchOf\": {}}"}]
    }}));
    assert_eq!(graph.warnings.len(), 1, "{:?}", graph.warnings);
    assert_eq!(
        graph.warnings[0].pointer,
        "/DataXMData/Annotations/0/Annotation/Annotation/0/AnnotationJSONText"
    );
    assert!(graph.warnings[0].message.contains("SessionID"));
    assert!(
        !graph
            .quads
            .iter()
            .any(|q| q.predicate == vocab::ihi::BRANCH_OF)
    );
}
