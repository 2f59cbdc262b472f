//! SHACL shapes (`ontology/shapes.ttl`) and `check-graph`: the shapes are SHACL by the
//! W3C's shapes for shapes; every example and fixture, ingested, conforms in the store and
//! exported; for every constraint of the shapes a mutated graph breaks it, with the
//! expected focus node, path and constraint component; pySHACL gives the same verdicts;
//! bad input is refused with its place; and the engine runs the W3C SHACL core test suite
//! (tests/fixtures/shacl-w3c), with the part it fails listed and explained.
//!
//! pySHACL (PyPI, pinned in .ci/bootstrap) must be installed: the cross-check fails,
//! saying so, unless `IHIGRAPH_SKIP_PYSHACL=1`, when it says it skipped.
#![allow(
    clippy::unwrap_used,
    clippy::panic,
    clippy::too_many_lines,
    clippy::print_stdout
)]

mod common;

use assert_cmd::Command;
use common::{examples_dir, fixture_path, ihigraph, import_fixtures};
use ihigraph::HistoryStore;
use ihigraph::memory::{PutItem, put_item};
use ihigraph::rdf::{SHAPES, ShapeReport, Shapes};
use oxigraph::io::{RdfFormat, RdfParser, RdfSerializer};
use oxrdf::vocab::{rdf, xsd};
use oxrdf::{
    BlankNode, GraphName, Literal, NamedNode, NamedOrBlankNode, Quad, Term, Triple, TripleRef,
};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::OnceLock;

const SH: &str = "http://www.w3.org/ns/shacl#";
const IHI: &str = "https://w3id.org/ihigraph/ontology#";

fn sh(local: &str) -> NamedNode {
    NamedNode::new_unchecked(format!("{SH}{local}"))
}

fn bin() -> Command {
    let mut command = Command::cargo_bin("ihigraph").unwrap();
    command.env_remove("IHIGRAPH_STORE");
    command
}

/// The triples of a Turtle text, with relative IRIs against `base`.
fn turtle(text: &str, base: &str) -> Vec<Triple> {
    RdfParser::from_format(RdfFormat::Turtle)
        .with_base_iri(base)
        .unwrap()
        .for_slice(text.as_bytes())
        .map(|quad| Triple::from(quad.unwrap()))
        .collect()
}

// ------------------------------------------------------------------- the corpus

/// Every example and fixture ingested into one store, with memory items of both kinds,
/// and its graphs as `export` writes them.
struct Corpus {
    dir: tempfile::TempDir,
    graphs: Vec<(GraphName, Vec<Triple>)>,
}

impl Corpus {
    fn store(&self) -> PathBuf {
        self.dir.path().join("store")
    }
}

fn corpus() -> &'static Corpus {
    static CORPUS: OnceLock<Corpus> = OnceLock::new();
    CORPUS.get_or_init(build_corpus)
}

fn build_corpus() -> Corpus {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    ihigraph(&store)
        .arg("ingest")
        .arg(examples_dir())
        .arg(fixture_path("valid"))
        .assert()
        .success();
    let fixtures: Vec<(String, PathBuf)> = import_fixtures(true)
        .into_iter()
        .filter(|(_, path)| {
            let name = path.file_name().unwrap().to_string_lossy();
            !name.starts_with("broken-") && name != "expected.json"
        })
        .collect();
    for (index, (format, path)) in fixtures.iter().enumerate() {
        ihigraph(&store)
            .args(["ingest", "--from", format, "--session-id"])
            .arg(format!("fixture-{index}"))
            .arg(path)
            .assert()
            .success();
    }
    // Memory: `remember` (with a validity), and keyed items (with and without a source
    // and a time to live), as the Python package writes them.
    ihigraph(&store)
        .args([
            "remember",
            "--session",
            "trip-kyoto-2026",
            "--turn",
            "0",
            "--kind",
            "fact",
        ])
        .args([
            "--valid-from",
            "2026-01-01T00:00:00Z",
            "--valid-until",
            "2026-02-01T00:00:00Z",
        ])
        .arg("Prefers trains to planes")
        .assert()
        .success();
    ihigraph(&store)
        .args([
            "remember",
            "--session",
            "trip-kyoto-2026",
            "--turn",
            "1",
            "--kind",
            "decision",
        ])
        .arg("Stays in Kyoto three nights")
        .assert()
        .success();
    {
        let opened = HistoryStore::open(&store, &Default::default()).unwrap();
        let now = oxsdatatypes::DateTime::from_str("2026-03-01T10:00:00Z").unwrap();
        let namespace = vec!["users".to_owned(), "alice".to_owned()];
        let value = serde_json::json!({"theme": "dark"});
        for (key, source, ttl) in [
            ("preferences", Some(("trip-kyoto-2026", 0)), Some(60)),
            ("plain", None, None),
        ] {
            let put = PutItem {
                namespace: &namespace,
                key,
                value: &value,
                source,
                ttl: ttl.map(oxsdatatypes::DayTimeDuration::new),
            };
            put_item(&opened, &put, now).unwrap();
        }
    }
    let export = ihigraph(&store)
        .args(["export", "--format", "nquads"])
        .output()
        .unwrap();
    assert!(export.status.success());
    let mut graphs: BTreeMap<String, (GraphName, Vec<Triple>)> = BTreeMap::new();
    for quad in RdfParser::from_format(RdfFormat::NQuads).for_slice(&export.stdout) {
        let quad: Quad = quad.unwrap();
        graphs
            .entry(quad.graph_name.to_string())
            .or_insert_with(|| (quad.graph_name.clone(), Vec::new()))
            .1
            .push(Triple::from(quad));
    }
    Corpus {
        dir,
        graphs: graphs.into_values().collect(),
    }
}

// ------------------------------------------------------------------- the shapes

#[test]
fn the_shapes_command_prints_the_shipped_shapes_and_they_compile() {
    let output = bin().arg("shapes").output().unwrap();
    assert!(output.status.success());
    assert_eq!(String::from_utf8(output.stdout).unwrap(), SHAPES);
    Shapes::shipped().unwrap();
}

/// The W3C's shapes for shapes graphs (SHACL 1.0, appendix C), as the test suite ships it.
fn shacl_shacl() -> PathBuf {
    fixture_path("shacl-w3c/core/complex/shacl-shacl-data-shapes.ttl")
}

#[test]
fn the_shapes_are_shacl_by_the_w3c_shapes_for_shapes() {
    // pySHACL checks: rudof's engine reports false results on the shapes for shapes (its
    // own W3C test, complex/shacl-shacl, is among its expected failures below).
    let dir = tempfile::tempdir().unwrap();
    let ours = dir.path().join("ours.nt");
    write_ntriples(&ours, &turtle(SHAPES, "https://w3id.org/ihigraph/shapes"));
    // And the check can fail: a count that is not an integer is not SHACL.
    let mut broken_triples = turtle(SHAPES, "https://w3id.org/ihigraph/shapes");
    let count = broken_triples
        .iter()
        .position(|t| t.predicate == sh("minCount"))
        .unwrap();
    broken_triples[count].object = Literal::new_simple_literal("one").into();
    let broken = dir.path().join("broken.nt");
    write_ntriples(&broken, &broken_triples);
    let Some(verdicts) = pyshacl(&shacl_shacl(), &[ours.clone(), broken.clone()]) else {
        return;
    };
    assert!(verdicts[&ours].0, "{:#?}", verdicts[&ours].1);
    assert!(!verdicts[&broken].0);
    assert!(verdicts[&broken].1.iter().any(|(_, path, component)| {
        path.as_deref() == Some("<http://www.w3.org/ns/shacl#minCount>")
            && component == "<http://www.w3.org/ns/shacl#DatatypeConstraintComponent>"
    }));
    // The engine reads them (and compiles them) all the same.
    Shapes::shipped().unwrap();
}

// ------------------------------------------------------------------- conformance

#[test]
fn every_example_and_fixture_conforms_in_the_store_and_exported() {
    let corpus = corpus();
    assert!(corpus.graphs.len() > 60, "{} graphs", corpus.graphs.len());
    let output = ihigraph(&corpus.store())
        .arg("check-graph")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{text}");
    assert!(text.contains(" 0 do not (0 result(s))"), "{text}");
    // One session at a time, as asked.
    ihigraph(&corpus.store())
        .args(["check-graph", "--session", "trip-kyoto-2026"])
        .assert()
        .success()
        .stdout("1 graph(s) checked: 1 conform, 0 do not (0 result(s))\n");
    // Exported, in each syntax a file can come in.
    for (format, name) in [("trig", "all.trig"), ("nquads", "all.nq")] {
        let export = ihigraph(&corpus.store())
            .args(["export", "--format", format])
            .output()
            .unwrap();
        let file = corpus.dir.path().join(name);
        std::fs::write(&file, &export.stdout).unwrap();
        let output = bin().arg("check-graph").arg(&file).output().unwrap();
        let text = String::from_utf8_lossy(&output.stdout);
        assert!(output.status.success(), "{name}: {text}");
        let graphs = corpus.graphs.len();
        assert!(
            text.ends_with(&format!(
                "{graphs} graph(s) checked: {graphs} conform, 0 do not (0 result(s))\n"
            )),
            "{name}: {text}"
        );
    }
    let session = ihigraph(&corpus.store())
        .args([
            "export",
            "--format",
            "turtle",
            "--session",
            "trip-kyoto-2026",
        ])
        .output()
        .unwrap();
    let file = corpus.dir.path().join("one.ttl");
    std::fs::write(&file, &session.stdout).unwrap();
    bin().arg("check-graph").arg(&file).assert().success();
    // The report as RDF says it conforms.
    let output = bin()
        .args(["check-graph", "--format", "turtle"])
        .arg(&file)
        .output()
        .unwrap();
    let report = turtle(
        &String::from_utf8(output.stdout).unwrap(),
        "http://example.org/",
    );
    assert!(
        report
            .iter()
            .any(|t| t.predicate == sh("conforms") && t.object == Literal::from(true).into())
    );
}

// ------------------------------------------------------------------- mutations

/// A mutation of one corpus graph, and the result it must give.
#[derive(Debug, Clone)]
struct Mutation {
    /// What it breaks: `Shape property constraint`.
    name: String,
    graph: usize,
    remove: Vec<Triple>,
    add: Vec<Triple>,
    focus: Term,
    path: Option<String>,
    component: NamedNode,
}

impl Mutation {
    fn triples(&self, corpus: &Corpus) -> Vec<Triple> {
        let mut triples: Vec<Triple> = corpus.graphs[self.graph]
            .1
            .iter()
            .filter(|t| !self.remove.contains(t))
            .cloned()
            .collect();
        triples.extend(self.add.iter().cloned());
        triples
    }
}

/// The shapes graph, read as the tests read it.
struct ShapesGraph {
    by_subject: HashMap<NamedOrBlankNode, Vec<(NamedNode, Term)>>,
}

impl ShapesGraph {
    fn new() -> Self {
        let mut by_subject: HashMap<NamedOrBlankNode, Vec<(NamedNode, Term)>> = HashMap::new();
        for triple in turtle(SHAPES, "https://w3id.org/ihigraph/shapes") {
            by_subject
                .entry(triple.subject)
                .or_default()
                .push((triple.predicate, triple.object));
        }
        Self { by_subject }
    }

    fn values(&self, subject: &Term, local: &str) -> Vec<Term> {
        let subject = match subject {
            Term::NamedNode(n) => NamedOrBlankNode::from(n.clone()),
            Term::BlankNode(b) => NamedOrBlankNode::from(b.clone()),
            _ => return Vec::new(),
        };
        let predicate = if local.contains(':') && !local.starts_with("sh:") {
            NamedNode::new_unchecked(local)
        } else {
            sh(local.trim_start_matches("sh:"))
        };
        self.by_subject
            .get(&subject)
            .into_iter()
            .flatten()
            .filter(|(p, _)| *p == predicate)
            .map(|(_, o)| o.clone())
            .collect()
    }

    fn value(&self, subject: &Term, local: &str) -> Option<Term> {
        self.values(subject, local).into_iter().next()
    }

    fn list(&self, head: &Term) -> Vec<Term> {
        let mut members = Vec::new();
        let mut current = head.clone();
        while current != Term::from(rdf::NIL) {
            members.push(self.value(&current, rdf::FIRST.as_str()).unwrap());
            current = self.value(&current, rdf::REST.as_str()).unwrap();
        }
        members
    }

    fn node_shapes(&self) -> Vec<Term> {
        let mut shapes: Vec<Term> = self
            .by_subject
            .iter()
            .filter(|(_, pairs)| {
                pairs
                    .iter()
                    .any(|(p, o)| *p == rdf::TYPE && *o == sh("NodeShape").into())
            })
            .map(|(subject, _)| Term::from(subject.clone()))
            .collect();
        shapes.sort_by_key(ToString::to_string);
        shapes
    }
}

/// A path: a predicate, or the inverse of one, or a sequence of predicates.
#[derive(Debug, Clone)]
enum Path1 {
    Forward(NamedNode),
    Inverse(NamedNode),
    Sequence(Vec<NamedNode>),
}

impl Path1 {
    fn of(shapes: &ShapesGraph, term: &Term) -> Self {
        match term {
            Term::NamedNode(iri) => Self::Forward(iri.clone()),
            other => match shapes.value(other, "inversePath") {
                Some(Term::NamedNode(iri)) => Self::Inverse(iri),
                _ => Self::Sequence(
                    shapes
                        .list(other)
                        .into_iter()
                        .map(|t| match t {
                            Term::NamedNode(iri) => iri,
                            other => panic!("unexpected path member {other}"),
                        })
                        .collect(),
                ),
            },
        }
    }

    fn text(&self) -> String {
        match self {
            Self::Forward(iri) => iri.to_string(),
            Self::Inverse(iri) => format!("^{iri}"),
            Self::Sequence(iris) => format!(
                "({})",
                iris.iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join("/")
            ),
        }
    }

    /// The triples that give `focus` the value `value` along this path.
    fn link(&self, focus: &Term, value: Term) -> Triple {
        match self {
            Self::Forward(p) => Triple::new(subject(focus), p.clone(), value),
            Self::Inverse(p) => Triple::new(subject(&value), p.clone(), focus.clone()),
            Self::Sequence(_) => panic!("no link along a sequence"),
        }
    }

    /// The triples through which `focus` has values along this path in `graph`.
    fn links(&self, graph: &[Triple], focus: &Term) -> Vec<Triple> {
        graph
            .iter()
            .filter(|t| match self {
                Self::Forward(p) => t.predicate == *p && Term::from(t.subject.clone()) == *focus,
                Self::Inverse(p) => t.predicate == *p && t.object == *focus,
                Self::Sequence(_) => false,
            })
            .cloned()
            .collect()
    }
}

fn subject(term: &Term) -> NamedOrBlankNode {
    match term {
        Term::NamedNode(n) => n.clone().into(),
        Term::BlankNode(b) => b.clone().into(),
        other => panic!("not a subject: {other}"),
    }
}

fn mutation_iri(name: &str) -> Term {
    NamedNode::new_unchecked(format!("urn:mutation:{name}")).into()
}

/// A literal of `datatype` that is `offset` from `base` (numbers) or distinct by `index`.
fn literal_of(datatype: Option<&NamedNode>, index: i64) -> Term {
    let value = match datatype.map(NamedNode::as_str) {
        Some(d) if d == xsd::DATE_TIME.as_str() => format!("2020-01-{:02}T00:00:00Z", index + 1),
        Some(d) if d == xsd::BOOLEAN.as_str() => (index % 2 == 0).to_string(),
        Some(d) if d == xsd::INTEGER.as_str() || d == xsd::DECIMAL.as_str() => {
            (index + 1000).to_string()
        }
        _ => return Literal::new_simple_literal(format!("mutation {index}")).into(),
    };
    Literal::new_typed_literal(value, datatype.unwrap().clone()).into()
}

/// The properties a path's values are compared with by `sh:lessThan` or
/// `sh:lessThanOrEquals`, either way.
fn compared_with(shapes: &ShapesGraph, path: &Path1) -> Vec<NamedNode> {
    let Path1::Forward(predicate) = path else {
        return Vec::new();
    };
    let mut others = Vec::new();
    for (subject, pairs) in &shapes.by_subject {
        let subject = Term::from(subject.clone());
        let Some(Term::NamedNode(own)) = shapes.value(&subject, "path") else {
            continue;
        };
        for (p, o) in pairs {
            if *p != sh("lessThan") && *p != sh("lessThanOrEquals") {
                continue;
            }
            let Term::NamedNode(other) = o else { continue };
            if own == *predicate {
                others.push(other.clone());
            } else if other == predicate {
                others.push(own.clone());
            }
        }
    }
    others
}

/// The focus nodes of a shape's target classes in the corpus: (graph, node).
fn instances(corpus: &Corpus, classes: &[Term]) -> Vec<(usize, Term)> {
    let mut found = Vec::new();
    for (index, (_, triples)) in corpus.graphs.iter().enumerate() {
        for triple in triples {
            if triple.predicate == rdf::TYPE && classes.contains(&triple.object) {
                found.push((index, Term::from(triple.subject.clone())));
            }
        }
    }
    found
}

/// One mutation for every constraint of the shapes; panics naming a constraint no
/// corpus graph lets it break.
fn mutations() -> Vec<Mutation> {
    let corpus = corpus();
    let shapes = ShapesGraph::new();
    let mut all = Vec::new();
    let mut untestable = Vec::new();
    for shape in shapes.node_shapes() {
        let classes = shapes.values(&shape, "targetClass");
        let focus_nodes = instances(corpus, &classes);
        let shape_name = shape.to_string();
        let Some((graph, focus)) = focus_nodes.first().cloned() else {
            untestable.push(format!("{shape_name}: no instance"));
            continue;
        };
        let mut push = |name: String, graph: usize, remove, add, focus: Term, path, component| {
            all.push(Mutation {
                name,
                graph,
                remove,
                add,
                focus,
                path,
                component,
            });
        };
        // Node-level constraints.
        if shapes.value(&shape, "closed") == Some(Literal::from(true).into()) {
            let bogus = NamedNode::new_unchecked(format!("{IHI}bogus"));
            push(
                format!("{shape_name} sh:closed"),
                graph,
                vec![],
                vec![Triple::new(
                    subject(&focus),
                    bogus.clone(),
                    Literal::from(1),
                )],
                focus.clone(),
                Some(bogus.to_string()),
                sh("ClosedConstraintComponent"),
            );
        }
        if shapes.value(&shape, "nodeKind").is_some() {
            let blank = BlankNode::new_unchecked("mutationfocus");
            push(
                format!("{shape_name} sh:nodeKind"),
                graph,
                vec![],
                vec![Triple::new(blank.clone(), rdf::TYPE, classes[0].clone())],
                blank.into(),
                None,
                sh("NodeKindConstraintComponent"),
            );
        }
        if let Some(class) = shapes.value(&shape, "class") {
            let typed = Triple::new(subject(&focus), rdf::TYPE, class);
            push(
                format!("{shape_name} sh:class"),
                graph,
                vec![typed],
                vec![],
                focus.clone(),
                None,
                sh("ClassConstraintComponent"),
            );
        }
        if shapes.value(&shape, "or").is_some() {
            // A paired result whose call id is not its call's.
            let found = focus_nodes.iter().find_map(|(graph, node)| {
                let triples = &corpus.graphs[*graph].1;
                let call_id = NamedNode::new_unchecked(format!("{IHI}callId"));
                let generated =
                    NamedNode::new_unchecked("http://www.w3.org/ns/prov#wasGeneratedBy");
                let has = |p: &NamedNode| {
                    triples
                        .iter()
                        .find(|t| t.predicate == *p && Term::from(t.subject.clone()) == *node)
                        .cloned()
                };
                Some((*graph, node.clone(), has(&call_id)?, has(&generated)?))
            });
            match found {
                Some((graph, node, call_id, _)) => {
                    let mut other = call_id.clone();
                    other.object = Literal::new_simple_literal("call-of-another").into();
                    push(
                        format!("{shape_name} sh:or"),
                        graph,
                        vec![call_id],
                        vec![other],
                        node,
                        None,
                        sh("OrConstraintComponent"),
                    );
                }
                None => untestable.push(format!(
                    "{shape_name} sh:or: no paired result with a call id"
                )),
            }
        }
        for property in shapes.values(&shape, "property") {
            let path = Path1::of(&shapes, &shapes.value(&property, "path").unwrap());
            let path_text = path.text();
            let datatype = match shapes.value(&property, "datatype") {
                Some(Term::NamedNode(d)) => Some(d),
                _ => None,
            };
            let name = |constraint: &str| format!("{shape_name} {path_text} sh:{constraint}");
            // A focus node with a value along the path, for removals.
            let with_value = focus_nodes
                .iter()
                .find(|(graph, node)| !path.links(&corpus.graphs[*graph].1, node).is_empty())
                .cloned();
            let in_list = shapes.value(&property, "in").map(|list| shapes.list(&list));
            // A value the property's other constraints accept, `index` apart.
            let good_value = |index: i64| match (&in_list, datatype.as_ref()) {
                (Some(list), _) => list[usize::try_from(index).unwrap() % list.len()].clone(),
                (None, Some(_)) => literal_of(datatype.as_ref(), index),
                (None, None) => mutation_iri(&format!("value-{index}")),
            };
            for (constraint, value) in shapes.by_subject.get(&subject(&property)).unwrap().clone() {
                let Some(local) = constraint.as_str().strip_prefix(SH) else {
                    continue;
                };
                let component = |name: &str| sh(&format!("{name}ConstraintComponent"));
                let expect = |graph, remove, add, focus: &Term, component| {
                    (
                        graph,
                        remove,
                        add,
                        focus.clone(),
                        Some(path_text.clone()),
                        component,
                    )
                };
                let case = match local {
                    "path" | "message" => continue,
                    "minCount" => with_value.as_ref().map(|(graph, node)| {
                        expect(
                            *graph,
                            path.links(&corpus.graphs[*graph].1, node),
                            vec![],
                            node,
                            component("MinCount"),
                        )
                    }),
                    "maxCount" if !matches!(path, Path1::Sequence(_)) => {
                        let count = value
                            .to_string()
                            .trim_matches('"')
                            .parse::<i64>()
                            .unwrap_or(1);
                        // A list too short for more values than the count: values outside
                        // it (which break sh:in too).
                        let short = in_list
                            .as_ref()
                            .is_some_and(|l| i64::try_from(l.len()).unwrap() <= count);
                        let add = (0..=count)
                            .map(|index| {
                                let value = if short {
                                    mutation_iri(&format!("extra-{index}"))
                                } else {
                                    good_value(index + 7)
                                };
                                path.link(&focus, value)
                            })
                            .collect();
                        Some(expect(graph, vec![], add, &focus, component("MaxCount")))
                    }
                    "datatype" => {
                        let wrong: Term = if datatype.as_ref() == Some(&xsd::STRING.into_owned()) {
                            Literal::from(7).into()
                        } else {
                            Literal::new_simple_literal("not of the datatype").into()
                        };
                        // The engine stops (a panic, reported as an error) when it
                        // compares literals it cannot order: the values this one is
                        // compared with by sh:lessThan(OrEquals) go.
                        let remove = compared_with(&shapes, &path)
                            .iter()
                            .flat_map(|other| {
                                Path1::Forward(other.clone()).links(&corpus.graphs[graph].1, &focus)
                            })
                            .collect();
                        Some(expect(
                            graph,
                            remove,
                            vec![path.link(&focus, wrong)],
                            &focus,
                            component("Datatype"),
                        ))
                    }
                    "class" | "nodeKind" => {
                        let wrong: Term = match (&path, local) {
                            (Path1::Forward(_), "nodeKind") => {
                                Literal::new_simple_literal("a literal").into()
                            }
                            (Path1::Inverse(_), "nodeKind") => continue,
                            _ => mutation_iri("untyped"),
                        };
                        let kind = if local == "class" {
                            "Class"
                        } else {
                            "NodeKind"
                        };
                        Some(expect(
                            graph,
                            vec![],
                            vec![path.link(&focus, wrong)],
                            &focus,
                            component(kind),
                        ))
                    }
                    "minInclusive" | "maxInclusive" => {
                        let bound: i64 = match &value {
                            Term::Literal(l) => l.value().parse().unwrap(),
                            _ => panic!("bound {value}"),
                        };
                        let outside = if local == "minInclusive" {
                            bound - 1
                        } else {
                            bound + 1
                        };
                        let literal = Literal::new_typed_literal(
                            outside.to_string(),
                            datatype.clone().unwrap_or(xsd::INTEGER.into_owned()),
                        );
                        let kind = if local == "minInclusive" {
                            "MinInclusive"
                        } else {
                            "MaxInclusive"
                        };
                        Some(expect(
                            graph,
                            vec![],
                            vec![path.link(&focus, literal.into())],
                            &focus,
                            component(kind),
                        ))
                    }
                    "in" => {
                        let outside: Term = match in_list.as_ref().unwrap()[0] {
                            Term::Literal(_) => {
                                Literal::new_simple_literal("outside the list").into()
                            }
                            _ => mutation_iri("outside"),
                        };
                        Some(expect(
                            graph,
                            vec![],
                            vec![path.link(&focus, outside)],
                            &focus,
                            component("In"),
                        ))
                    }
                    "pattern" => Some(expect(
                        graph,
                        vec![],
                        vec![path.link(&focus, Literal::new_simple_literal(" ").into())],
                        &focus,
                        component("Pattern"),
                    )),
                    "equals" => {
                        let Term::NamedNode(other) = &value else {
                            panic!()
                        };
                        let extra =
                            Triple::new(subject(&focus), other.clone(), mutation_iri("unequal"));
                        Some(expect(
                            graph,
                            vec![],
                            vec![extra],
                            &focus,
                            component("Equals"),
                        ))
                    }
                    "lessThan" | "lessThanOrEquals" => {
                        let Term::NamedNode(other) = &value else {
                            panic!()
                        };
                        let late =
                            Literal::new_typed_literal("2030-01-01T00:00:00Z", xsd::DATE_TIME);
                        let early =
                            Literal::new_typed_literal("2020-01-01T00:00:00Z", xsd::DATE_TIME);
                        let mut remove = path.links(&corpus.graphs[graph].1, &focus);
                        remove.extend(
                            Path1::Forward(other.clone()).links(&corpus.graphs[graph].1, &focus),
                        );
                        let add = vec![
                            path.link(&focus, late.into()),
                            Triple::new(subject(&focus), other.clone(), early),
                        ];
                        let kind = if local == "lessThan" {
                            "LessThan"
                        } else {
                            "LessThanOrEquals"
                        };
                        Some(expect(graph, remove, add, &focus, component(kind)))
                    }
                    _ => None,
                };
                match case {
                    Some((graph, remove, add, focus, path, component)) => {
                        push(name(local), graph, remove, add, focus, path, component);
                    }
                    None => untestable.push(name(local)),
                }
            }
        }
    }
    assert!(
        untestable.is_empty(),
        "constraints no mutation of the corpus breaks:\n{}",
        untestable.join("\n")
    );
    all
}

/// Whether a report holds the result a mutation must give.
fn has_result(report: &ShapeReport, mutation: &Mutation) -> bool {
    report.results.iter().any(|result| {
        result.focus == mutation.focus
            && result.path.as_ref().map(ToString::to_string) == mutation.path
            && result.component == mutation.component
    })
}

#[test]
fn every_constraint_is_broken_by_a_mutation_with_its_focus_node_and_path() {
    let corpus = corpus();
    let shapes = Shapes::shipped().unwrap();
    let mutations = mutations();
    assert!(mutations.len() > 150, "{} mutations", mutations.len());
    let mut missed = Vec::new();
    for mutation in &mutations {
        let triples = mutation.triples(corpus);
        let report = shapes.validate(triples.iter().map(Triple::as_ref)).unwrap();
        if !has_result(&report, mutation) {
            missed.push(format!(
                "{}: expected {} {:?} {}, got {:#?}",
                mutation.name, mutation.focus, mutation.path, mutation.component, report.results
            ));
        }
    }
    assert!(
        missed.is_empty(),
        "{} of {} mutations missed:\n{}",
        missed.len(),
        mutations.len(),
        missed.join("\n")
    );
}

#[test]
fn check_graph_reports_a_mutation_as_lines_and_as_rdf_and_exits_1() {
    let corpus = corpus();
    let mutation = mutations()
        .into_iter()
        .find(|m| m.name.contains("inputTokens") && m.name.ends_with("sh:minInclusive"))
        .unwrap();
    let file = corpus.dir.path().join("tokens.nt");
    write_ntriples(&file, &mutation.triples(corpus));
    let output = bin().arg("check-graph").arg(&file).output().unwrap();
    assert_eq!(output.status.code(), Some(1));
    let text = String::from_utf8(output.stdout).unwrap();
    let focus = match &mutation.focus {
        Term::NamedNode(n) => n.as_str().replace("https://w3id.org/ihigraph/id/", "id:"),
        other => other.to_string(),
    };
    assert!(
        text.contains(&format!("{}: {focus} ihi:inputTokens: sh:MinInclusiveConstraintComponent (sh:Violation): a token count is a non-negative integer [value \"-1\"", file.display())),
        "{text}"
    );
    assert!(
        text.ends_with("1 graph(s) checked: 0 conform, 1 do not (1 result(s))\n"),
        "{text}"
    );
    for format in ["turtle", "ntriples", "rdfxml"] {
        let output = bin()
            .args(["check-graph", "--format", format])
            .arg(&file)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(1), "{format}");
        let syntax = match format {
            "turtle" => RdfFormat::Turtle,
            "ntriples" => RdfFormat::NTriples,
            _ => RdfFormat::RdfXml,
        };
        let report: Vec<Triple> = RdfParser::from_format(syntax)
            .for_slice(&output.stdout)
            .map(|q| Triple::from(q.unwrap()))
            .collect();
        let value = |p: &str| {
            report
                .iter()
                .find(|t| t.predicate == sh(p))
                .map(|t| t.object.clone())
        };
        assert_eq!(
            value("conforms"),
            Some(Literal::from(false).into()),
            "{format}"
        );
        assert_eq!(value("focusNode"), Some(mutation.focus.clone()), "{format}");
        assert_eq!(
            value("resultPath"),
            Some(NamedNode::new_unchecked(format!("{IHI}inputTokens")).into())
        );
        assert_eq!(
            value("sourceConstraintComponent"),
            Some(sh("MinInclusiveConstraintComponent").into())
        );
    }
}

#[test]
fn check_graph_on_the_store_reports_a_broken_session_and_only_the_sessions_asked() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    ihigraph(&store)
        .arg("ingest")
        .arg(examples_dir())
        .assert()
        .success();
    ihigraph(&store)
        .args(["sparql", "--update"])
        .arg(format!(
            "INSERT {{ GRAPH ?g {{ ?turn <{IHI}inputTokens> -5 }} }} WHERE {{ GRAPH ?g {{ ?turn <https://jido.ai/ontology/conversation-history#turnIndex> 0 ; <{IHI}role> ?role ; <https://jido.ai/ontology/conversation-history#partOfConversation> ?c . ?c <{IHI}sessionId> \"trip-kyoto-2026\" }} }}"
        ))
        .assert()
        .success();
    let output = ihigraph(&store).arg("check-graph").output().unwrap();
    let text = String::from_utf8(output.stdout).unwrap();
    assert_eq!(output.status.code(), Some(1), "{text}");
    assert!(text.contains("session trip-kyoto-2026: id:conversation/trip-kyoto-2026/turn/0 ihi:inputTokens: sh:MinInclusiveConstraintComponent"), "{text}");
    assert!(
        text.ends_with("4 graph(s) checked: 3 conform, 1 do not (1 result(s))\n"),
        "{text}"
    );
    let sessions = ihigraph(&store).arg("sessions").output().unwrap();
    let listing = String::from_utf8_lossy(&sessions.stdout);
    let id = listing
        .lines()
        .skip(1)
        .map(|line| {
            line.split('\t')
                .next()
                .unwrap()
                .trim_matches('"')
                .to_owned()
        })
        .find(|id| id != "trip-kyoto-2026")
        .unwrap();
    ihigraph(&store)
        .args(["check-graph", "--session", &id])
        .assert()
        .success();
    ihigraph(&store)
        .args(["check-graph", "--session", "no-such-session"])
        .assert()
        .code(1)
        .stderr(predicates::str::contains("no-such-session"));
}

fn write_ntriples(path: &Path, triples: &[Triple]) {
    let mut writer = RdfSerializer::from_format(RdfFormat::NTriples).for_writer(Vec::new());
    for triple in triples {
        writer.serialize_triple(TripleRef::from(triple)).unwrap();
    }
    std::fs::write(path, writer.finish().unwrap()).unwrap();
}

// ------------------------------------------------------------------- bad input

#[test]
fn unreadable_input_is_refused_with_its_place() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.ttl");
    bin()
        .arg("check-graph")
        .arg(&missing)
        .assert()
        .code(3)
        .stderr(predicates::str::contains(format!(
            "cannot read {}",
            missing.display()
        )));
    let broken = dir.path().join("broken.ttl");
    std::fs::write(
        &broken,
        "<http://e/a> <http://e/b> <http://e/c> .\n<http://e/a> <http://e/b> \"open\n",
    )
    .unwrap();
    bin()
        .arg("check-graph")
        .arg(&broken)
        .assert()
        .code(1)
        .stderr(predicates::str::contains(format!("{}: ", broken.display())))
        .stderr(predicates::str::contains("line 2"));
    let unknown = dir.path().join("data.json");
    std::fs::write(&unknown, "{}").unwrap();
    bin()
        .arg("check-graph")
        .arg(&unknown)
        .assert()
        .code(2)
        .stderr(predicates::str::contains("unknown RDF syntax"));
    // Told its syntax, the same file is read as that.
    bin()
        .args(["check-graph", "--input-format", "turtle"])
        .arg(&broken)
        .assert()
        .code(1)
        .stderr(predicates::str::contains("line 2"));
    // Shapes that do not parse, or are not SHACL.
    let good = dir.path().join("good.ttl");
    std::fs::write(&good, "<http://e/a> <http://e/b> <http://e/c> .\n").unwrap();
    bin()
        .arg("check-graph")
        .arg("--shapes")
        .arg(&broken)
        .arg(&good)
        .assert()
        .code(1)
        .stderr(predicates::str::contains("line 2"));
    let not_shacl = dir.path().join("not-shacl.ttl");
    std::fs::write(
        &not_shacl,
        "@prefix sh: <http://www.w3.org/ns/shacl#> .\n<http://e/S> a sh:NodeShape ; sh:minCount \"many\" .\n",
    )
    .unwrap();
    let output = bin()
        .arg("check-graph")
        .arg("--shapes")
        .arg(&not_shacl)
        .arg(&good)
        .output()
        .unwrap();
    assert_ne!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stdout)
    );
    // With shapes of one's own, a graph is checked against them.
    let shapes = dir.path().join("shapes.ttl");
    std::fs::write(
        &shapes,
        "@prefix sh: <http://www.w3.org/ns/shacl#> .\n<http://e/S> a sh:NodeShape ; sh:targetNode <http://e/a> ; sh:property [ sh:path <http://e/b> ; sh:minCount 2 ] .\n",
    )
    .unwrap();
    let output = bin()
        .arg("check-graph")
        .arg("--shapes")
        .arg(&shapes)
        .arg(&good)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&output.stdout)
            .contains("<http://e/a> <http://e/b>: sh:MinCountConstraintComponent")
    );
}

// ------------------------------------------------------------------- pySHACL

/// pySHACL's answer for one file: whether it conforms, and its (focus, path, component)
/// results.
type Verdict = (bool, BTreeSet<(String, Option<String>, String)>);

/// Runs pySHACL on the files; `None` (after saying so) when it is absent and
/// `IHIGRAPH_SKIP_PYSHACL=1` says to skip.
fn pyshacl(shapes: &Path, files: &[PathBuf]) -> Option<HashMap<PathBuf, Verdict>> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/shapes/pyshacl_results.py");
    let present = std::process::Command::new("python3")
        .args(["-c", "import pyshacl"])
        .output()
        .is_ok_and(|output| output.status.success());
    if !present {
        if std::env::var("IHIGRAPH_SKIP_PYSHACL").as_deref() == Ok("1") {
            println!("skipped, as IHIGRAPH_SKIP_PYSHACL=1 says: pySHACL is not installed");
            return None;
        }
        panic!(
            "the cross-check needs python3 with pySHACL: python3 -m pip install pyshacl==0.40.1 \
             (or run .ci/bootstrap); or set IHIGRAPH_SKIP_PYSHACL=1 to skip it"
        );
    }
    let output = std::process::Command::new("python3")
        .arg(script)
        .arg(shapes)
        .args(files)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let mut verdicts = HashMap::new();
    for line in String::from_utf8(output.stdout).unwrap().lines() {
        let value: serde_json::Value = serde_json::from_str(line).unwrap();
        let results = value["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                (
                    r[0].as_str().unwrap().to_owned(),
                    r[1].as_str().map(str::to_owned),
                    r[2].as_str().unwrap().to_owned(),
                )
            })
            .collect();
        verdicts.insert(
            PathBuf::from(value["file"].as_str().unwrap()),
            (value["conforms"].as_bool().unwrap(), results),
        );
    }
    Some(verdicts)
}

/// ihigraph's verdict, in pySHACL's terms.
fn verdict(report: &ShapeReport) -> Verdict {
    let results = report
        .results
        .iter()
        .map(|r| {
            let focus = match &r.focus {
                Term::BlankNode(_) => "_".to_owned(),
                other => other.to_string(),
            };
            (
                focus,
                r.path.as_ref().map(ToString::to_string),
                r.component.to_string(),
            )
        })
        .collect();
    (report.conforms(), results)
}

#[test]
fn pyshacl_gives_the_same_verdicts_on_the_corpus_and_every_mutation() {
    let corpus = corpus();
    let shapes = Shapes::shipped().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let shapes_file = dir.path().join("shapes.ttl");
    std::fs::write(&shapes_file, SHAPES).unwrap();
    let mut cases: Vec<(PathBuf, String, Vec<Triple>)> = Vec::new();
    for (index, (name, triples)) in corpus.graphs.iter().enumerate() {
        cases.push((
            dir.path().join(format!("graph-{index}.nt")),
            name.to_string(),
            triples.clone(),
        ));
    }
    for (index, mutation) in mutations().iter().enumerate() {
        cases.push((
            dir.path().join(format!("mutation-{index}.nt")),
            mutation.name.clone(),
            mutation.triples(corpus),
        ));
    }
    for (file, _, triples) in &cases {
        write_ntriples(file, triples);
    }
    let files: Vec<PathBuf> = cases.iter().map(|(file, _, _)| file.clone()).collect();
    let Some(theirs) = pyshacl(&shapes_file, &files) else {
        return;
    };
    let mut differences = Vec::new();
    for (file, name, triples) in &cases {
        let ours = verdict(&shapes.validate(triples.iter().map(Triple::as_ref)).unwrap());
        let theirs = &theirs[file];
        if ours != *theirs {
            differences.push(format!(
                "{name}: ihigraph {} {:?}, pySHACL {} {:?}",
                ours.0,
                ours.1.difference(&theirs.1).collect::<Vec<_>>(),
                theirs.0,
                theirs.1.difference(&ours.1).collect::<Vec<_>>()
            ));
        }
    }
    assert!(
        differences.is_empty(),
        "{} of {} verdicts differ:\n{}",
        differences.len(),
        cases.len(),
        differences.join("\n")
    );
}

// ------------------------------------------------------------------- W3C test suite

/// The W3C SHACL core tests the engine (rudof's shacl_validation 0.2.12, with the fixes of
/// patches/shacl_validation) does not pass, each with why: what it gets wrong. The test
/// fails if one of them passes, or any other fails.
const EXPECTED_FAILURES: &[(&str, &str)] = &[
    (
        "complex/shacl-shacl.ttl",
        "the shapes for shapes do not conform to themselves: the list shape (sh:zeroOrMorePath \
         rdf:rest with sh:node) fails on well-formed lists under sh:in, sh:or, sh:xone, sh:path",
    ),
    (
        "node/and-001.ttl",
        "sh:and reports the inner shapes' own results instead of one sh:AndConstraintComponent",
    ),
    ("node/and-002.ttl", "as node/and-001"),
    (
        "property/and-001.ttl",
        "as node/and-001, at a property shape",
    ),
    (
        "node/maxExclusive-001.ttl",
        "numeric literals come back as xsd:double in sh:value (\"4.0\"^^xsd:decimal as \"4\"^^xsd:double)",
    ),
    ("node/maxInclusive-001.ttl", "as node/maxExclusive-001"),
    ("node/minExclusive-001.ttl", "as node/maxExclusive-001"),
    (
        "property/datatype-001.ttl",
        "as node/maxExclusive-001 (\"11.1\"^^xsd:decimal)",
    ),
    (
        "node/node-001.ttl",
        "sh:node results carry neither the source shape nor the value node",
    ),
    (
        "property/node-001.ttl",
        "sh:node at a property shape gives the value node as the focus node, without source shape or value",
    ),
    ("property/node-002.ttl", "as property/node-001"),
    (
        "node/not-001.ttl",
        "sh:not results carry neither the source shape nor the value node",
    ),
    ("node/not-002.ttl", "as node/not-001"),
    (
        "property/not-001.ttl",
        "sh:not at a property shape gives the value node as the focus node, without source shape or value",
    ),
    (
        "property/languageIn-001.ttl",
        "sh:languageIn compares tags exactly, not as SPARQL's langMatches: \"Hill\"@en-NZ is refused under (\"en\" \"mi\")",
    ),
    (
        "property/lessThan-002.ttl",
        "the engine stops comparing literals it cannot order (rudof_rdf panics; ihigraph reports an error)",
    ),
    (
        "property/property-001.ttl",
        "a property shape's own sh:property is not applied to its value nodes",
    ),
    (
        "validation-reports/shared.ttl",
        "a property shape shared by two shapes is validated once per focus node (the engine's cache), so the second use reports nothing",
    ),
];

/// What a test expects, or what the engine gave: conforms, and the results as
/// (focus, path, component, source shape, value), blank nodes as `_`.
type Outcome = Option<(bool, BTreeSet<[String; 5]>)>;

fn w3c_tests() -> Vec<(String, PathBuf)> {
    let root = fixture_path("shacl-w3c/core/manifest.ttl");
    let mut tests = Vec::new();
    let mut manifests = vec![root];
    while let Some(manifest) = manifests.pop() {
        let base = format!("file://{}", manifest.display());
        let text = std::fs::read_to_string(&manifest).unwrap();
        let triples = turtle(&text, &base);
        let include = NamedNode::new_unchecked(
            "http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#include",
        );
        for triple in triples.iter().filter(|t| t.predicate == include) {
            let Term::NamedNode(iri) = &triple.object else {
                panic!()
            };
            let path = PathBuf::from(iri.as_str().strip_prefix("file://").unwrap());
            if path.to_string_lossy().ends_with("manifest.ttl") {
                manifests.push(path);
            } else {
                tests.push((iri.as_str().to_owned(), path));
            }
        }
    }
    tests.sort();
    tests
}

fn term_text(term: &Term) -> String {
    match term {
        Term::BlankNode(_) => "_".to_owned(),
        // Numbers compare by value as the engine writes them.
        Term::Literal(l) if l.datatype() == xsd::INTEGER => l.value().to_owned(),
        other => other.to_string(),
    }
}

/// Runs one W3C test file: its expected outcome, and the engine's.
fn run_w3c_test(iri: &str, path: &Path) -> (Outcome, Outcome) {
    let text = std::fs::read_to_string(path).unwrap();
    let triples = turtle(&text, iri);
    let mf = |local: &str| {
        NamedNode::new_unchecked(format!(
            "http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#{local}"
        ))
    };
    let object = |s: &NamedOrBlankNode, p: &NamedNode| {
        triples
            .iter()
            .find(|t| t.subject == *s && t.predicate == *p)
            .map(|t| t.object.clone())
    };
    let result = triples
        .iter()
        .find(|t| t.predicate == mf("result"))
        .unwrap()
        .object
        .clone();
    let expected: Outcome = match &result {
        Term::NamedNode(n) if n.as_str().ends_with("#Failure") => None,
        report => {
            let report = subject(report);
            let conforms = object(&report, &sh("conforms")) == Some(Literal::from(true).into());
            let results = triples
                .iter()
                .filter(|t| t.subject == report && t.predicate == sh("result"))
                .map(|t| {
                    let r = subject(&t.object);
                    let get = |p: &str| object(&r, &sh(p));
                    [
                        get("focusNode").map(|t| term_text(&t)).unwrap_or_default(),
                        get("resultPath")
                            .map(|p| path_text(&triples, &p))
                            .unwrap_or_default(),
                        get("sourceConstraintComponent")
                            .map(|t| t.to_string())
                            .unwrap_or_default(),
                        get("sourceShape")
                            .map(|t| term_text(&t))
                            .unwrap_or_default(),
                        get("value").map(|t| term_text(&t)).unwrap_or_default(),
                    ]
                })
                .collect();
            Some((conforms, results))
        }
    };
    // The data and shapes graphs: this file, or the files its action names.
    let sht =
        |local: &str| NamedNode::new_unchecked(format!("http://www.w3.org/ns/shacl-test#{local}"));
    let action = triples
        .iter()
        .find(|t| t.predicate == mf("action"))
        .unwrap()
        .object
        .clone();
    let graph_file = |local: &str| -> (String, String) {
        let Some(Term::NamedNode(file)) = object(&subject(&action), &sht(local)) else {
            panic!("{iri}: no {local}")
        };
        let path = file.as_str().strip_prefix("file://").unwrap();
        (
            file.as_str().to_owned(),
            std::fs::read_to_string(path).unwrap(),
        )
    };
    let (data_iri, data_text) = graph_file("dataGraph");
    let (shapes_iri, shapes_text) = graph_file("shapesGraph");
    let data = turtle(&data_text, &data_iri);
    let actual = Shapes::parse_with_base(
        &shapes_text,
        RdfFormat::Turtle,
        &shapes_iri,
        Some(&shapes_iri),
    )
    .and_then(|shapes| shapes.validate(data.iter().map(Triple::as_ref)))
    .ok()
    .map(|report| {
        let results = report
            .results
            .iter()
            .map(|r| {
                [
                    term_text(&r.focus),
                    r.path.as_ref().map(ToString::to_string).unwrap_or_default(),
                    r.component.to_string(),
                    r.source_shape.as_ref().map(term_text).unwrap_or_default(),
                    r.value.as_ref().map(term_text).unwrap_or_default(),
                ]
            })
            .collect();
        (report.conforms(), results)
    });
    (expected, actual)
}

/// A path of a test's expected report, in SPARQL's syntax as ShapePath writes it.
fn path_text(triples: &[Triple], term: &Term) -> String {
    let object = |s: &Term, p: &NamedNode| {
        triples
            .iter()
            .find(|t| Term::from(t.subject.clone()) == *s && t.predicate == *p)
            .map(|t| t.object.clone())
    };
    let list = |head: &Term| {
        let mut members = Vec::new();
        let mut current = head.clone();
        while current != Term::from(rdf::NIL) {
            members.push(path_text(
                triples,
                &object(&current, &rdf::FIRST.into_owned()).unwrap(),
            ));
            current = object(&current, &rdf::REST.into_owned()).unwrap();
        }
        members
    };
    if let Term::NamedNode(iri) = term {
        return iri.to_string();
    }
    if let Some(inner) = object(term, &sh("inversePath")) {
        return format!("^{}", path_text(triples, &inner));
    }
    for (local, suffix) in [
        ("zeroOrMorePath", "*"),
        ("oneOrMorePath", "+"),
        ("zeroOrOnePath", "?"),
    ] {
        if let Some(inner) = object(term, &sh(local)) {
            return format!("({}){suffix}", path_text(triples, &inner));
        }
    }
    if let Some(members) = object(term, &sh("alternativePath")) {
        return format!("({})", list(&members).join("|"));
    }
    format!("({})", list(term).join("/"))
}

#[test]
fn the_engine_passes_the_w3c_shacl_core_tests_it_claims() {
    let tests = w3c_tests();
    assert!(tests.len() >= 98, "{} tests", tests.len());
    let mut passed = 0;
    let mut unexpected = Vec::new();
    for (iri, path) in &tests {
        let name = path
            .strip_prefix(fixture_path("shacl-w3c/core"))
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let (expected, actual) = run_w3c_test(iri, path);
        let ok = expected == actual;
        passed += usize::from(ok);
        let listed = EXPECTED_FAILURES.iter().any(|(test, _)| *test == name);
        if ok && listed {
            unexpected.push(format!("{name}: passes now; take it off EXPECTED_FAILURES"));
        } else if !ok && !listed {
            let summary = |outcome: &Outcome, other: &Outcome| match (outcome, other) {
                (Some((conforms, results)), Some((_, others))) => format!(
                    "conforms {conforms}, only here: {:?}",
                    results.difference(others).collect::<Vec<_>>()
                ),
                (Some((conforms, results)), None) => format!("conforms {conforms}, {results:?}"),
                (None, _) => "a failure".to_owned(),
            };
            unexpected.push(format!(
                "{name}:\n  expected {}\n  got {}",
                summary(&expected, &actual),
                summary(&actual, &expected)
            ));
        }
    }
    println!("W3C SHACL core: {passed} of {} tests pass", tests.len());
    assert!(unexpected.is_empty(), "{}", unexpected.join("\n"));
}
