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
