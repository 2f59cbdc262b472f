//! Full-text search: the index beside the store finds texts by their words in English,
//! French, German, Spanish, Chinese and Japanese (word forms, phrases, prefixes), filters
//! them, shows why they matched, and stays in step with every write of the store, even
//! across a crash between the store's commit and the index's.
#![allow(clippy::unwrap_used, clippy::panic)]

use ihigraph::check::{CheckOptions, check_document};
use ihigraph::memory::{MemoryKind, PutItem, Remember, keyed_item_id, put_item, remember};
use ihigraph::query::{Arguments, SEARCH};
use ihigraph::rdf::map_history;
use ihigraph::store::{Embedded, IndexedSession, SearchHit, SearchIndex, SearchKind};
use ihigraph::{HistoryStore, SearchRequest, StoreError};
use oxigraph::model::Term;
use oxigraph::sparql::QueryResults;
use oxsdatatypes::DateTime;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::str::FromStr;

/// 2026-01-01T00:00:00Z, and a turn every hour after it.
const START: i64 = 1_767_225_600_000;
const HOUR: i64 = 3_600_000;

fn time(id: &str, millis: i64) -> Value {
    json!({"Header": "OSD-STM-V1.5", "SimpleTimeID": id, "SimpleTimeData": [{
        "FlagsByte": 3, "StartTime": millis, "EndTime": millis,
        "AccuracyMode": "single", "AccuracyPlusMinus": 1}]})
}

/// A PGM-IHI document whose turns are (prompt, answer) pairs, an hour apart; the first
/// by a person, the others by an agent.
fn document(session: &str, turns: &[(&str, &str)]) -> Value {
    let turns: Vec<Value> = turns
        .iter()
        .enumerate()
        .map(|(index, (prompt, answer))| {
            json!({
                "TurnIndex": index,
                "Timestamp": time(&format!("{session}-{index}"), START + index as i64 * HOUR),
                "Role": if index == 0 { "H-User" } else { "A-User" },
                "PRCPrompt": {"messages": [{"role": "user", "content": prompt}]},
                "BKNResponse": {"type": "message", "role": "assistant",
                    "content": [{"type": "text", "text": answer}]},
            })
        })
        .collect();
    json!({
        "Header": "PGM-IHI-V1.0", "MInstanceID": "m", "UEnvironmentID": "u",
        "SessionID": session, "SessionStartTime": time(&format!("{session}-start"), START),
        "TurnCount": turns.len(), "Turns": turns,
        "DataXMData": {"Header": "PTF-DEM-V1.0", "DataID": session, "DataType": "PGM-IHI-V1.0",
            "Source": [{"AIMID": "PGM-AUS-tests"}]},
    })
}

fn write(store: &HistoryStore, document: &Value) {
    let checked = check_document(document, CheckOptions::default());
    let history = checked
        .history
        .unwrap_or_else(|| panic!("{:?}", checked.problems));
    store
        .write_session(&map_history(&history, store.scheme()))
        .unwrap();
}

/// Six sessions, one language each.
fn corpus() -> Vec<Value> {
    vec![
        document(
            "en",
            &[
                (
                    "Why did the deployment fail last night?",
                    "The database connection timed out while the deployments were rolling out.",
                ),
                (
                    "Can we retry it with a longer timeout?",
                    "Yes: I raised the connection timeout to thirty seconds and retried.",
                ),
            ],
        ),
        document(
            "fr",
            &[(
                "Pourquoi le déploiement a-t-il échoué hier soir ?",
                "La connexion à la base de données a expiré pendant les déploiements.",
            )],
        ),
        document(
            "de",
            &[(
                "Warum ist die Bereitstellung gestern fehlgeschlagen?",
                "Die Verbindungen zur Datenbank sind während der Bereitstellung abgelaufen.",
            )],
        ),
        document(
            "es",
            &[(
                "¿Por qué falló el despliegue anoche?",
                "Las conexiones con la base de datos se agotaron durante el despliegue.",
            )],
        ),
        document(
            "zh",
            &[("昨晚的部署为什么失败了？", "部署期间数据库连接超时了。")],
        ),
        document(
            "ja",
            &[(
                "昨夜のデプロイはなぜ失敗したのですか？",
                "デプロイ中にデータベースの接続がタイムアウトしました。",
            )],
        ),
    ]
}

fn store_with_corpus() -> HistoryStore {
    let store = HistoryStore::in_memory(&Default::default()).unwrap();
    for document in corpus() {
        write(&store, &document);
    }
    store
}

fn search(store: &HistoryStore, query: &str) -> Vec<SearchHit> {
    store.search(&SearchRequest::new(query)).unwrap()
}

/// The hits as `session/turn/kind`, best first.
fn places(hits: &[SearchHit]) -> Vec<String> {
    hits.iter()
        .map(|hit| {
            format!(
                "{}/{}/{}",
                hit.session_id,
                hit.turn_index.unwrap(),
                hit.kind.name()
            )
        })
        .collect()
}

fn sessions(hits: &[SearchHit]) -> Vec<&str> {
    let mut sessions: Vec<&str> = hits.iter().map(|hit| hit.session_id.as_str()).collect();
    sessions.sort_unstable();
    sessions.dedup();
    sessions
}

#[test]
fn word_forms_are_found_in_each_language() {
    let store = store_with_corpus();
    for (query, session, language) in [
        ("deployments", "en", "en"),
        ("déploiements", "fr", "fr"),
        ("Verbindung", "de", "de"),
        ("conexión", "es", "es"),
        ("数据库", "zh", "cjk"),
        ("タイムアウト", "ja", "cjk"),
    ] {
        let hits = search(&store, query);
        assert_eq!(sessions(&hits), [session], "{query}");
        assert!(
            hits.iter().all(|hit| hit.language == language),
            "{query}: {hits:?}"
        );
    }
    // Both the singular and the plural of English are found from either.
    assert_eq!(
        places(&search(&store, "deployment")),
        places(&search(&store, "deployments"))
    );
}

#[test]
fn phrases_prefixes_and_boolean_operators() {
    let store = store_with_corpus();
    // The phrase holds only where the words are side by side.
    assert_eq!(
        places(&search(&store, "\"connection timed out\"")),
        ["en/0/answer"]
    );
    assert_eq!(
        places(&search(&store, "\"timed connection\"")),
        Vec::<String>::new()
    );
    // Words are all required by default; OR takes either.
    // ("retried" is a form of "retry": both turns of the retry hold both words.)
    assert_eq!(places(&search(&store, "retry timeout")).len(), 2);
    assert_eq!(
        places(&search(&store, "retry \"longer timeout\"")),
        ["en/1/prompt"]
    );
    assert_eq!(
        sessions(&search(&store, "Bereitstellung OR despliegue")),
        ["de", "es"]
    );
    assert_eq!(places(&search(&store, "timeout -longer")), ["en/1/answer"]);
    // A prefix finds every word it begins.
    let mut retries = places(&search(&store, "retr*"));
    retries.sort();
    assert_eq!(retries, ["en/1/answer", "en/1/prompt"]);
    assert_eq!(sessions(&search(&store, "Datenb*")), ["de"]);
    // A CJK phrase finds its characters in order.
    assert_eq!(sessions(&search(&store, "\"数据库连接\"")), ["zh"]);
}

#[test]
fn a_search_finds_texts_never_the_index_records_of_its_sessions() {
    let store = store_with_corpus();
    let texts = |query: &str| {
        store
            .search(&SearchRequest {
                limit: 1000,
                ..SearchRequest::new(query)
            })
            .unwrap()
    };
    // Only a word left out is refused: it would be every text of the store.
    assert!(matches!(
        store.search(&SearchRequest::new("-timeout")),
        Err(StoreError::SearchQuery { .. })
    ));
    // A field named in the search reaches no record of the index either.
    assert_eq!(texts("kind:indexed"), Vec::new());
    assert_eq!(texts("kind:indexed OR timeout").len(), 2);
    // One word alone is read as the union of the languages' fields (the fastest plan):
    // the same hits as the same word behind a filter that keeps everything.
    let everything = SearchRequest {
        kinds: SearchKind::ALL.to_vec(),
        ..SearchRequest::new("connection")
    };
    assert_eq!(
        places(&search(&store, "connection")),
        places(&store.search(&everything).unwrap())
    );
}

#[test]
fn hits_know_their_turn_and_show_the_match() {
    let store = store_with_corpus();
    let hits = search(&store, "\"connection timed out\"");
    let [hit] = hits.as_slice() else {
        panic!("{hits:?}")
    };
    assert_eq!(hit.session_id, "en");
    assert_eq!(hit.turn_index, Some(0));
    assert_eq!(hit.role.as_deref(), Some("H-User"));
    assert_eq!(hit.kind, SearchKind::Answer);
    assert_eq!(hit.time.as_deref(), Some("2026-01-01T00:00:00Z"));
    assert!(
        hit.turn
            .as_deref()
            .unwrap()
            .ends_with("/conversation/en/turn/0"),
        "{hit:?}"
    );
    assert_eq!(
        hit.snippet.marked("[", "]"),
        "The database [connection] [timed] [out] while the deployments were rolling [out]"
    );
    assert!(hit.score > 0.0);
}

#[test]
fn filters_narrow_the_hits() {
    let store = store_with_corpus();
    let request = |query: &str| SearchRequest::new(query);
    let all = places(&store.search(&request("timeout OR connection")).unwrap());
    assert_eq!(all.len(), 3, "{all:?}");
    let only = |request: SearchRequest| places(&store.search(&request).unwrap());
    assert_eq!(
        only(SearchRequest {
            kinds: vec![SearchKind::Prompt],
            ..request("timeout OR connection")
        }),
        ["en/1/prompt"]
    );
    assert_eq!(
        only(SearchRequest {
            role: Some("H-User".into()),
            ..request("timeout OR connection")
        }),
        ["en/0/answer"]
    );
    assert_eq!(
        only(SearchRequest {
            since: Some("2026-01-01T00:30:00Z".into()),
            ..request("timeout OR connection")
        })
        .len(),
        2
    );
    assert_eq!(
        only(SearchRequest {
            until: Some("2026-01-01T01:00:00Z".into()),
            ..request("timeout OR connection")
        }),
        ["en/0/answer"]
    );
    assert_eq!(
        only(SearchRequest {
            session: Some("fr".into()),
            ..request("connexion")
        }),
        ["fr/0/answer"]
    );
    assert_eq!(
        only(SearchRequest {
            session: Some("de".into()),
            ..request("connexion")
        })
        .len(),
        0
    );
    let limited = store
        .search(&SearchRequest {
            limit: 1,
            ..request("timeout OR connection")
        })
        .unwrap();
    assert_eq!(limited.len(), 1);
}

#[test]
fn bad_searches_say_what_is_wrong() {
    let store = store_with_corpus();
    for (request, expected) in [
        (SearchRequest::new("   "), "nothing to search for"),
        (SearchRequest::new("\"unclosed"), "cannot read the search"),
        (
            SearchRequest {
                since: Some("yesterday".into()),
                ..SearchRequest::new("x")
            },
            "since \"yesterday\" is not a date and time",
        ),
    ] {
        let error = store.search(&request).unwrap_err();
        assert!(matches!(error, StoreError::SearchQuery { .. }), "{error:?}");
        assert!(error.to_string().contains(expected), "{error}");
    }
}

#[test]
fn the_index_follows_every_write() {
    let store = store_with_corpus();
    // A session written again: its old texts go, its new ones come.
    write(
        &store,
        &document(
            "en",
            &[("Where is the cache invalidated?", "In the scheduler.")],
        ),
    );
    assert!(
        search(&store, "deployment")
            .iter()
            .all(|hit| hit.session_id != "en")
    );
    assert_eq!(places(&search(&store, "scheduler")), ["en/0/answer"]);
    // Sessions replaced together, as a live OTLP batch writes them.
    let checked = check_document(
        &document("de", &[("Wo liegt der Zeppelin?", "Im Hangar.")]),
        CheckOptions::default(),
    );
    let graph = map_history(checked.history.as_ref().unwrap(), store.scheme());
    store.replace_sessions(&[graph]).unwrap();
    assert_eq!(sessions(&search(&store, "Zeppelin")), ["de"]);
    assert!(search(&store, "Bereitstellung").is_empty());
    // A SPARQL update that changes a text.
    store
        .update(
            "PREFIX ch: <https://jido.ai/ontology/conversation-history#>
             DELETE { GRAPH ?g { ?a ch:answerText ?t } } INSERT { GRAPH ?g { ?a ch:answerText \"In the garbage collector.\" } }
             WHERE { GRAPH ?g { ?a ch:answerText ?t FILTER(?t = \"In the scheduler.\") } }",
        )
        .unwrap();
    assert!(search(&store, "scheduler").is_empty());
    assert_eq!(places(&search(&store, "garbage")), ["en/0/answer"]);
    // A memory item, then its removal.
    let remembered = remember(
        &store,
        &Remember {
            session: "fr".into(),
            turn: 0,
            kind: MemoryKind::Lesson,
            text: "Raise the database timeout before a rollout".into(),
            valid_from: None,
            valid_until: None,
        },
        DateTime::from_str("2026-02-01T00:00:00Z").unwrap(),
    )
    .unwrap();
    let hits = store
        .search(&SearchRequest {
            kinds: vec![SearchKind::Memory],
            ..SearchRequest::new("rollout")
        })
        .unwrap();
    let [hit] = hits.as_slice() else {
        panic!("{hits:?}")
    };
    assert_eq!(hit.turn.as_deref(), Some(remembered.turn.as_str()));
    let item = store.scheme().memory_item(&remembered.id);
    assert_eq!(hit.item.as_deref(), Some(item.as_str()));
    ihigraph::memory::forget(&store, &remembered.id).unwrap();
    assert!(search(&store, "rollout").is_empty());
    // Deletes.
    store.delete_session("fr").unwrap();
    assert!(search(&store, "déploiement").is_empty());
    store.delete_all_sessions().unwrap();
    assert!(search(&store, "Zeppelin OR 数据库").is_empty());
    assert_eq!(store.search_index().unwrap().text_count(), 0);
}

/// A keyed item (LangGraph's store) is found by its value, and named by its IRI; put
/// again, its new value replaces the old; deleted, it is gone.
#[test]
fn keyed_items_are_found_by_their_value() {
    let store = store_with_corpus();
    let namespace = vec!["users".to_owned(), "ana".to_owned()];
    let put = |value: &Value| {
        let item = PutItem {
            namespace: &namespace,
            key: "food",
            value,
            source: None,
            ttl: None,
        };
        put_item(
            &store,
            &item,
            DateTime::from_str("2026-02-01T00:00:00Z").unwrap(),
        )
        .unwrap();
    };
    put(&json!({"likes": "pizza margherita"}));
    let hits = search(&store, "margherita");
    let [hit] = hits.as_slice() else {
        panic!("{hits:?}")
    };
    let keyed = store
        .scheme()
        .memory_item(&keyed_item_id(&namespace, "food"));
    assert_eq!(
        (hit.kind, hit.item.as_deref(), hit.session_id.as_str()),
        (SearchKind::Memory, Some(keyed.as_str()), "")
    );
    put(&json!({"likes": "sushi"}));
    assert!(search(&store, "margherita").is_empty());
    assert_eq!(search(&store, "sushi").len(), 1);
    ihigraph::memory::delete_item(&store, &namespace, "food").unwrap();
    assert!(search(&store, "sushi").is_empty());
}

#[test]
fn a_store_written_without_its_index_is_repaired_on_open() {
    let directory = tempfile::tempdir().unwrap();
    {
        let store = HistoryStore::open(directory.path(), &Default::default()).unwrap();
        for document in corpus() {
            write(&store, &document);
        }
    }
    // A crash between the store's commit and the index's: the store written (and its
    // fingerprints recorded) by a handle that never reaches the index.
    {
        let bare = HistoryStore::with_backend(
            Embedded::open(directory.path()).unwrap(),
            &Default::default(),
        )
        .unwrap();
        write(
            &bare,
            &document(
                "en",
                &[("Where is the cache invalidated?", "In the scheduler.")],
            ),
        );
        write(
            &bare,
            &document(
                "it",
                &[("Perché il rilascio è fallito?", "Il rilascio è fallito.")],
            ),
        );
        bare.delete_session("de").unwrap();
    }
    // And an index that claims a session the store never had.
    {
        let index = SearchIndex::open(&directory.path().join("search")).unwrap();
        index
            .replace(
                &[IndexedSession {
                    owner: "https://example.org/ghost".into(),
                    digest: "0".into(),
                    texts: Vec::new(),
                    turns: None,
                }],
                &[],
            )
            .unwrap();
        assert!(
            index
                .indexed()
                .unwrap()
                .contains_key("https://example.org/ghost")
        );
    }
    let store = HistoryStore::open(directory.path(), &Default::default()).unwrap();
    assert!(
        search(&store, "deployment")
            .iter()
            .all(|hit| hit.session_id != "en")
    );
    assert_eq!(places(&search(&store, "scheduler")), ["en/0/answer"]);
    assert_eq!(sessions(&search(&store, "rilascio")), ["it"]);
    assert!(search(&store, "Bereitstellung").is_empty());
    let indexed = store.search_index().unwrap().indexed().unwrap();
    assert!(!indexed.contains_key("https://example.org/ghost"));
    let records = store.fingerprint_records().unwrap();
    for (graph, record) in &records {
        assert_eq!(
            indexed.get(graph.as_str()),
            Some(&record.fingerprint.digest),
            "{graph}"
        );
    }
}

#[test]
fn an_update_cut_short_leaves_its_sessions_to_be_indexed_again() {
    let directory = tempfile::tempdir().unwrap();
    {
        let store = HistoryStore::open(directory.path(), &Default::default()).unwrap();
        for document in corpus() {
            write(&store, &document);
        }
    }
    // What an update does before it runs (the touched session's marker taken out), then
    // the update committed in the store and a crash before the index follows it.
    let graph = ihigraph::rdf::IriScheme::default()
        .session_graph("es")
        .as_str()
        .to_owned();
    {
        let index = SearchIndex::open(&directory.path().join("search")).unwrap();
        index.forget_markers(Some(&[graph.as_str()])).unwrap();
    }
    {
        let bare = HistoryStore::with_backend(
            Embedded::open(directory.path()).unwrap(),
            &Default::default(),
        )
        .unwrap();
        bare.update(&format!(
            "PREFIX ch: <https://jido.ai/ontology/conversation-history#>
             DELETE {{ GRAPH <{graph}> {{ ?a ch:answerText ?t }} }} INSERT {{ GRAPH <{graph}> {{ ?a ch:answerText \"El servidor respondió tarde.\" }} }}
             WHERE {{ GRAPH <{graph}> {{ ?a ch:answerText ?t }} }}"
        ))
        .unwrap();
    }
    let store = HistoryStore::open(directory.path(), &Default::default()).unwrap();
    assert_eq!(places(&search(&store, "servidor")), ["es/0/answer"]);
    assert!(search(&store, "conexiones").is_empty());
}

/// The rows of a SELECT query, each value as written in N-Triples (a literal's lexical
/// form alone).
fn select(store: &HistoryStore, sparql: &str) -> Result<Vec<HashMap<String, String>>, StoreError> {
    let QueryResults::Solutions(solutions) = store.query(sparql)? else {
        panic!("not a SELECT query: {sparql}");
    };
    let mut rows = Vec::new();
    for solution in solutions {
        let solution = solution.map_err(StoreError::QueryEvaluation)?;
        rows.push(
            solution
                .iter()
                .map(|(variable, term)| {
                    let value = match term {
                        Term::Literal(literal) => literal.value().to_owned(),
                        other => other.to_string(),
                    };
                    (variable.as_str().to_owned(), value)
                })
                .collect(),
        );
    }
    Ok(rows)
}

const TEXT: &str = "PREFIX text: <https://w3id.org/ihigraph/text#>
PREFIX ch: <https://jido.ai/ontology/conversation-history#>
";

#[test]
fn the_sparql_form_gives_the_hits_and_joins_them_with_the_graph() {
    let store = store_with_corpus();
    let hits = search(&store, "connection OR Verbindung");
    let rows = select(
        &store,
        &format!(
            "{TEXT}SELECT ?turn ?kind ?session ?snippet WHERE {{
               SERVICE text:search {{ [] text:query \"connection OR Verbindung\" ; text:limit 10 ;
                 text:turn ?turn ; text:kind ?kind ; text:session ?session ; text:snippet ?snippet }} }}"
        ),
    )
    .unwrap();
    let as_rows: Vec<(String, String)> = rows
        .iter()
        .map(|row| (row["turn"].clone(), row["kind"].clone()))
        .collect();
    let as_hits: Vec<(String, String)> = hits
        .iter()
        .map(|hit| {
            (
                format!("<{}>", hit.turn.as_deref().unwrap()),
                hit.kind.name().to_owned(),
            )
        })
        .collect();
    assert_eq!(as_rows, as_hits);
    assert!(
        rows.iter().all(|row| row["snippet"].contains("**")),
        "{rows:?}"
    );
    // Narrowed in the pattern, joined outside it: the turn's index, read from its graph.
    let joined = select(
        &store,
        &format!(
            "{TEXT}SELECT ?index WHERE {{
               SERVICE text:search {{ [] text:query \"timeout\" ; text:kind \"answer\" ;
                 text:session \"en\" ; text:turn ?turn }}
               GRAPH ?graph {{ ?turn ch:turnIndex ?index }} }}"
        ),
    )
    .unwrap();
    assert_eq!(
        joined
            .iter()
            .map(|row| row["index"].as_str())
            .collect::<Vec<_>>(),
        ["1"]
    );
    // An update may use it: the hits' turns tagged in their own graphs.
    store
        .update(&format!(
            "{TEXT}INSERT {{ GRAPH ?graph {{ ?turn <urn:example:tag> \"timeout\" }} }} WHERE {{
               SERVICE text:search {{ [] text:query \"timeout\" ; text:turn ?turn }}
               GRAPH ?graph {{ ?turn ch:turnIndex ?index }} }}"
        ))
        .unwrap();
    let tagged = select(
        &store,
        "SELECT ?turn WHERE { GRAPH ?graph { ?turn <urn:example:tag> \"timeout\" } }",
    )
    .unwrap();
    // Its prompt and its answer say "timeout"; turn 0's answer says "timed out".
    assert_eq!(
        tagged
            .iter()
            .map(|row| row["turn"].as_str())
            .collect::<Vec<_>>(),
        ["<https://w3id.org/ihigraph/id/conversation/en/turn/1>"]
    );
}

#[test]
fn the_canned_search_ranks_turns_from_the_index_and_scans_without_one() {
    let store = store_with_corpus();
    let turns = |store: &HistoryStore, text: &str| -> Vec<(String, String, bool)> {
        let QueryResults::Solutions(rows) = store
            .run(&SEARCH, &Arguments::new().text("text", text))
            .unwrap()
        else {
            panic!("search is a SELECT query")
        };
        rows.map(|row| {
            let row = row.unwrap();
            let value = |name: &str| match row.get(name) {
                Some(Term::Literal(literal)) => literal.value().to_owned(),
                Some(other) => other.to_string(),
                None => String::new(),
            };
            (
                value("session"),
                value("turnIndex"),
                row.get("score").is_some(),
            )
        })
        .collect()
    };
    // Word forms, in their language, best first, each with its score.
    assert_eq!(
        turns(&store, "deployments"),
        [("en".to_owned(), "0".to_owned(), true)]
    );
    assert_eq!(
        turns(&store, "Bereitstellungen"),
        [("de".to_owned(), "0".to_owned(), true)]
    );
    // A store without an index scans for the text as written, unranked.
    let directory = tempfile::tempdir().unwrap();
    let bare = HistoryStore::with_backend(
        Embedded::open(directory.path()).unwrap(),
        &Default::default(),
    )
    .unwrap();
    for document in corpus() {
        write(&bare, &document);
    }
    assert_eq!(
        turns(&bare, "deployments"),
        [("en".to_owned(), "0".to_owned(), false)]
    );
    assert!(turns(&bare, "Bereitstellungen").is_empty());
    let error = select(
        &bare,
        &format!("{TEXT}SELECT * WHERE {{ SERVICE text:search {{ [] text:query \"x\" ; text:turn ?t }} }}"),
    )
    .unwrap_err();
    let message = ihigraph::store::error_chain(&error);
    assert!(message.contains("no full-text index"), "{message}");
}

#[test]
fn a_search_pattern_that_says_no_search_is_refused_with_why() {
    let store = store_with_corpus();
    for (pattern, expected) in [
        ("[] text:turn ?t", "it says no search"),
        (
            "[] text:query ?q ; text:turn ?t",
            "text:query takes a literal",
        ),
        (
            "[] text:query \"x\" ; text:limit 0",
            "text:limit should be a whole number from 1 to 1000",
        ),
        (
            "[] text:query \"x\" ; text:kind \"prompts\"",
            "unknown kind \"prompts\"",
        ),
        (
            "[] text:query \"x\" ; text:score 3",
            "text:score takes a variable",
        ),
        (
            "[] text:query \"x\" ; <urn:other> ?o",
            "not in the search's namespace",
        ),
        ("[] text:query \"x\" . ?other text:turn ?t", "one subject"),
        ("[] text:query \"x\" FILTER (true)", "triple patterns only"),
        (
            "[] text:query \"\\\"unclosed\" ; text:turn ?t",
            "cannot read the search",
        ),
    ] {
        let error = select(
            &store,
            &format!("{TEXT}SELECT * WHERE {{ SERVICE text:search {{ {pattern} }} }}"),
        )
        .unwrap_err();
        let message = ihigraph::store::error_chain(&error);
        assert!(message.contains(expected), "{pattern}: {message}");
        assert_eq!(message.matches(expected).count(), 1, "said once: {message}");
    }
}

/// One session of one text, as the index holds it.
fn indexed_session(session: &str, text: &str) -> IndexedSession {
    IndexedSession {
        owner: format!("https://example.org/session/{session}"),
        digest: text.into(),
        texts: vec![ihigraph::store::SearchText {
            session_id: session.into(),
            item: None,
            turn: None,
            turn_index: Some(0),
            role: Some("H-User".into()),
            time: None,
            millis: None,
            kind: SearchKind::Prompt,
            text: text.into(),
        }],
        turns: None,
    }
}

#[test]
fn a_writer_killed_before_its_commit_leaves_no_file_in_the_way() {
    let directory = tempfile::tempdir().unwrap();
    let (killed, next) = (
        directory.path().join("killed"),
        directory.path().join("next"),
    );
    SearchIndex::open(&killed)
        .unwrap()
        .replace(
            &[
                indexed_session("a", "first words"),
                indexed_session("b", "kept words"),
            ],
            &[],
        )
        .unwrap();
    std::fs::create_dir(&next).unwrap();
    let files = |dir: &std::path::Path| -> Vec<std::path::PathBuf> {
        let mut names: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .collect();
        names.sort();
        names
    };
    for file in files(&killed) {
        std::fs::copy(&file, next.join(file.file_name().unwrap())).unwrap();
    }
    // The second write, in full (its deletes of `a` in the first segment go to a file); then what a writer killed just before writing
    // `meta.json` leaves in `next`: its files, known to `.managed.json`, and the old meta.
    SearchIndex::open(&killed)
        .unwrap()
        .replace(&[indexed_session("a", "second words")], &[])
        .unwrap();
    let left: Vec<_> = files(&killed)
        .into_iter()
        .filter(|file| {
            let new = !next.join(file.file_name().unwrap()).exists();
            (new && !file.ends_with("meta.json")) || file.ends_with(".managed.json")
        })
        .collect();
    assert!(
        left.iter()
            .any(|file| file.extension().is_some_and(|ext| ext == "del")),
        "the second write should have written deletes: {left:?}"
    );
    for file in &left {
        std::fs::copy(file, next.join(file.file_name().unwrap())).unwrap();
    }
    // The next writer replays the same operations from the same commit, and so wants the
    // same file names.
    let index = SearchIndex::open(&next).unwrap();
    index
        .replace(&[indexed_session("a", "second words")], &[])
        .unwrap();
    let mut digests: Vec<_> = index.indexed().unwrap().into_values().collect();
    digests.sort();
    assert_eq!(digests, ["kept words", "second words"]);
    assert_eq!(index.text_count(), 2);
}

/// The segments an index in `directory` holds, by its last commit.
fn segment_count(directory: &std::path::Path) -> usize {
    tantivy::Index::open_in_dir(directory)
        .unwrap()
        .searchable_segment_metas()
        .unwrap()
        .len()
}

#[test]
fn a_store_closed_lets_the_merges_its_writes_began_finish() {
    // Eight writes leave eight segments or more of one level, which tantivy's merge policy
    // merges into one on a thread of its own, begun by the commit that made them eight.
    // Closing the store waits for it (and any merge it leads to), so that no level is left
    // with eight; before, the store's end cut it short, and the next writer began it again.
    let documents: Vec<Value> = corpus()
        .iter()
        .cycle()
        .take(8)
        .enumerate()
        .map(|(number, document)| {
            let mut document = document.clone();
            document["SessionID"] = json!(format!("session-{number}"));
            document
        })
        .collect();
    let directory = tempfile::tempdir().unwrap();
    {
        let store = HistoryStore::open(directory.path(), &Default::default()).unwrap();
        for document in &documents {
            write(&store, document);
        }
        store.wait_for_index().unwrap();
    }
    let segments = segment_count(&directory.path().join("search"));
    assert!(segments < 8, "{segments} segments left");
    let in_memory = HistoryStore::in_memory(&Default::default()).unwrap();
    for document in &documents {
        write(&in_memory, document);
    }
    let store = HistoryStore::open(directory.path(), &Default::default()).unwrap();
    let query = "deployment OR Bereitstellung OR 部署";
    let sorted = |hits: &[SearchHit]| {
        let mut places = places(hits);
        places.sort();
        places
    };
    assert_eq!(
        sorted(&search(&store, query)),
        sorted(&search(&in_memory, query))
    );
    let owners = |store: &HistoryStore| store.search_index().unwrap().indexed().unwrap().len();
    assert_eq!(owners(&store), owners(&in_memory));
}

#[test]
fn an_index_closed_is_written_again_after() {
    let directory = tempfile::tempdir().unwrap();
    let index = SearchIndex::open(directory.path()).unwrap();
    index
        .replace(&[indexed_session("a", "first words")], &[])
        .unwrap();
    index.close().unwrap();
    index
        .replace(&[indexed_session("b", "second words")], &[])
        .unwrap();
    assert_eq!(index.text_count(), 2);
    index.close().unwrap();
    index.close().unwrap();
    assert_eq!(index.indexed().unwrap().len(), 2);
}

#[test]
fn a_backup_is_searchable_once_opened() {
    let directory = tempfile::tempdir().unwrap();
    let copy = directory.path().join("copy");
    let before = {
        let store =
            HistoryStore::open(&directory.path().join("store"), &Default::default()).unwrap();
        for document in corpus() {
            write(&store, &document);
        }
        store.backup(&copy).unwrap();
        places(&search(&store, "deployment OR Bereitstellung OR 部署"))
    };
    // The backup holds the store only; its first open builds the index.
    assert!(!copy.join("search").exists());
    let restored = HistoryStore::open(&copy, &Default::default()).unwrap();
    assert_eq!(
        places(&search(&restored, "deployment OR Bereitstellung OR 部署")),
        before
    );
}

#[test]
fn an_index_of_another_schema_is_made_again() {
    let directory = tempfile::tempdir().unwrap();
    {
        let store = HistoryStore::open(directory.path(), &Default::default()).unwrap();
        for document in corpus() {
            write(&store, &document);
        }
    }
    // An index as an ihigraph with other fields would have left it.
    let index_dir = directory.path().join("search");
    std::fs::remove_dir_all(&index_dir).unwrap();
    std::fs::create_dir(&index_dir).unwrap();
    let mut schema = tantivy::schema::Schema::builder();
    schema.add_text_field("text", tantivy::schema::TEXT);
    drop(tantivy::Index::create_in_dir(&index_dir, schema.build()).unwrap());
    let store = HistoryStore::open(directory.path(), &Default::default()).unwrap();
    assert_eq!(
        places(&search(&store, "\"connection timed out\"")),
        ["en/0/answer"]
    );
}

#[test]
fn reindex_rebuilds_the_whole_index() {
    let store = store_with_corpus();
    let before = places(&search(&store, "deployment OR Bereitstellung OR 部署"));
    assert_eq!(store.reindex().unwrap(), 6);
    assert_eq!(
        places(&search(&store, "deployment OR Bereitstellung OR 部署")),
        before
    );
}

/// `recent-turns` of a session: its turn indexes, newest first (answered from the
/// session's digest, which a write over the version before must keep in step).
fn recent_turn_indexes(store: &HistoryStore, session: &str) -> Vec<String> {
    let arguments = Arguments::new().text("session", session);
    let QueryResults::Solutions(rows) = store
        .run(&ihigraph::query::RECENT_TURNS, &arguments)
        .unwrap()
    else {
        panic!("recent-turns is a SELECT query")
    };
    rows.map(|row| match row.unwrap().get("turnIndex") {
        Some(Term::Literal(index)) => index.value().to_owned(),
        other => panic!("{other:?}"),
    })
    .collect()
}

fn graph_of(store: &HistoryStore, document: &Value) -> ihigraph::rdf::SessionGraph {
    let history = check_document(document, CheckOptions::default())
        .history
        .unwrap();
    map_history(&history, store.scheme())
}

/// A session written over the version written before it (as the Python chat history
/// appends): what the store then holds is what `write_session` would have written, its
/// digest, fingerprint record and full-text index included, on disk and in memory.
#[test]
fn a_session_written_over_its_version_before_is_what_a_whole_write_gives() {
    let directory = tempfile::tempdir().unwrap();
    let on_disk = HistoryStore::open(directory.path(), &Default::default()).unwrap();
    let in_memory = HistoryStore::in_memory(&Default::default()).unwrap();
    for store in [on_disk, in_memory] {
        let before = graph_of(
            &store,
            &document(
                "grow",
                &[("Plan a trip", "Where to?"), ("Kyoto", "Two days?")],
            ),
        );
        store.write_session(&before).unwrap();
        let after_document = document(
            "grow",
            &[
                ("Plan a trip", "Where to?"),
                ("Kyoto", "Three days, with Nara."),
                ("And the temples?", "Fushimi Inari at dawn."),
            ],
        );
        let after = graph_of(&store, &after_document);
        let outcome = store.write_session_over(&before, &after).unwrap();
        assert!(outcome.replaced && !outcome.unchanged);
        let held: std::collections::HashSet<_> = store
            .session_quads(after.graph.as_ref())
            .unwrap()
            .into_iter()
            .collect();
        let wanted: std::collections::HashSet<_> = after.quads.iter().cloned().collect();
        assert_eq!(held, wanted);
        let history = check_document(&after_document, CheckOptions::default())
            .history
            .unwrap();
        assert_eq!(store.history("grow").unwrap(), history);
        assert_eq!(recent_turn_indexes(&store, "grow"), ["2", "1", "0"]);
        assert_eq!(places(&search(&store, "Fushimi")), ["grow/2/answer"]);
        assert_eq!(places(&search(&store, "Nara")), ["grow/1/answer"]);
        assert!(search(&store, "\"Two days\"").is_empty());
        // Only the turns that changed were indexed again: the index holds what a whole
        // write gives, no more, no less.
        let whole = HistoryStore::in_memory(&Default::default()).unwrap();
        whole.write_session(&after).unwrap();
        let count = |store: &HistoryStore| store.search_index().unwrap().text_count();
        assert_eq!(count(&store), count(&whole));
        for word in ["trip", "Kyoto", "Nara", "temples", "dawn", "Where"] {
            let hits = |store: &HistoryStore| {
                let mut hits = places(&search(store, word));
                hits.sort();
                hits
            };
            assert_eq!(hits(&store), hits(&whole), "{word}");
        }
        let report = ihigraph::integrity::verify(&store, &[], &|_, _| {}).unwrap();
        assert!(
            report
                .checks
                .iter()
                .all(|check| matches!(check.status, ihigraph::integrity::Status::Intact)),
            "{:?}",
            report.checks
        );
        let again = store.write_session_over(&after, &after).unwrap();
        assert!(again.unchanged);
    }
}

/// The embedded store with every call passed on but `change`, left to the trait's
/// default (one `DELETE DATA` and `INSERT DATA` update), as a backend without a faster
/// way has it.
struct ByUpdate(Embedded);

impl ihigraph::store::Backend for ByUpdate {
    fn location(&self) -> String {
        self.0.location()
    }
    fn capabilities(&self) -> ihigraph::store::Capabilities {
        self.0.capabilities()
    }
    fn quads(
        &self,
        graph: Option<oxigraph::model::GraphNameRef<'_>>,
    ) -> Result<ihigraph::store::QuadStream<'_>, StoreError> {
        self.0.quads(graph)
    }
    fn contains_graph(&self, graph: oxigraph::model::NamedNodeRef<'_>) -> Result<bool, StoreError> {
        self.0.contains_graph(graph)
    }
    fn add_graphs(&self, graphs: Vec<Vec<oxigraph::model::Quad>>) -> Result<(), StoreError> {
        self.0.add_graphs(graphs)
    }
    fn replace_graphs(
        &self,
        graphs: &[oxigraph::model::GraphName],
        quads: Vec<oxigraph::model::Quad>,
    ) -> Result<(), StoreError> {
        self.0.replace_graphs(graphs, quads)
    }
    fn query(
        &self,
        query: spargebra::Query,
        union_default_graph: bool,
    ) -> Result<QueryResults<'static>, StoreError> {
        self.0.query(query, union_default_graph)
    }
    fn update(&self, update: spargebra::Update) -> Result<(), StoreError> {
        self.0.update(update)
    }
    fn quad_count(&self) -> Result<usize, StoreError> {
        self.0.quad_count()
    }
}

#[test]
fn a_backend_without_its_own_change_of_quads_changes_them_by_update() {
    let store = HistoryStore::with_backend(
        ByUpdate(Embedded::in_memory().unwrap()),
        &Default::default(),
    )
    .unwrap();
    let before = graph_of(&store, &document("u", &[("Hello \"there\"", "Hi")]));
    store.write_session(&before).unwrap();
    let after_document = document("u", &[("Hello \"there\"", "Hi"), ("Bye\n", "Bye!")]);
    let after = graph_of(&store, &after_document);
    store.write_session_over(&before, &after).unwrap();
    let history = check_document(&after_document, CheckOptions::default())
        .history
        .unwrap();
    assert_eq!(store.history("u").unwrap(), history);
    assert_eq!(recent_turn_indexes(&store, "u"), ["1", "0"]);
}
