//! SHACL validation of a graph in memory: the shapes ihigraph ships
//! (`ontology/shapes.ttl`), or any shapes graph, run by rudof's SHACL core engine
//! (`shacl_validation`), and its results given as SHACL's validation report (as Rust
//! values and as RDF).

use oxigraph::io::{RdfFormat, RdfParseError, RdfParser};
use oxrdf::vocab::rdf;
use oxrdf::{
    BlankNode, GraphName, Literal, NamedNode, NamedOrBlankNode, Quad, Term, Triple, TripleRef,
};
use rudof_rdf::rdf_core::SHACLPath;
use rudof_rdf::rdf_impl::InMemoryGraph;
use shacl_ir::compiled::schema_ir::SchemaIR;
use shacl_rdf::ShaclParser;
use shacl_validation::shacl_processor::{GraphValidation, ShaclProcessor, ShaclValidationMode};
use shacl_validation::store::Graph;
use shacl_validation::validate_error::ValidateError;
use shacl_validation::validation_report::result::ValidationResult;
use std::collections::{BTreeMap, HashMap};
use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};

/// The shapes ihigraph ships, as Turtle: what `ihigraph shapes` prints.
pub const SHAPES: &str = include_str!("../../ontology/shapes.ttl");

/// The SHACL namespace.
const SH: &str = "http://www.w3.org/ns/shacl#";

/// What went wrong reading shapes or validating.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ShapesError {
    /// The shapes are not RDF of their syntax.
    #[error("{source_name}: {message}")]
    Syntax {
        /// Where the shapes came from.
        source_name: String,
        /// The parser's message, with its line and column.
        message: String,
    },
    /// The shapes graph is RDF but not SHACL the engine reads.
    #[error("{source_name}: not a SHACL shapes graph the engine reads: {message}")]
    NotShacl {
        /// Where the shapes came from.
        source_name: String,
        /// The engine's message.
        message: String,
    },
    /// The engine failed while validating.
    #[error("SHACL validation failed: {0}")]
    Engine(String),
    /// A file cannot be read.
    #[error("cannot read {path}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// A file's name does not say its RDF syntax, and none was given.
    #[error(
        "{path}: unknown RDF syntax: expected a name ending in .ttl, .nt, .nq, .trig, .rdf or .owl, or a format given"
    )]
    UnknownFormat {
        /// The file.
        path: PathBuf,
    },
}

/// The RDF syntax a file's name says: `.ttl`, `.nt`, `.nq`, `.trig`, `.rdf`/`.owl`/`.xml`.
pub fn format_of_path(path: &Path) -> Result<RdfFormat, ShapesError> {
    let extension = path
        .extension()
        .and_then(|extension| extension.to_str())
        .map(str::to_ascii_lowercase);
    match extension.as_deref() {
        Some("ttl" | "turtle") => Ok(RdfFormat::Turtle),
        Some("nt" | "ntriples") => Ok(RdfFormat::NTriples),
        Some("nq" | "nquads") => Ok(RdfFormat::NQuads),
        Some("trig") => Ok(RdfFormat::TriG),
        Some("rdf" | "owl" | "xml") => Ok(RdfFormat::RdfXml),
        _ => Err(ShapesError::UnknownFormat {
            path: path.to_owned(),
        }),
    }
}

/// A parser of `format`, with `base` when it is an IRI.
fn parser(format: RdfFormat, base: Option<&str>) -> RdfParser {
    let parser = RdfParser::from_format(format);
    match base {
        Some(base) => parser.clone().with_base_iri(base).unwrap_or(parser),
        None => parser,
    }
}

/// The graphs of an RDF file, each with its triples: the default graph first (when it
/// holds any), then the named graphs in the order of their names.
pub fn read_graphs(
    path: &Path,
    format: RdfFormat,
) -> Result<Vec<(GraphName, Vec<Triple>)>, ShapesError> {
    let file = std::fs::File::open(path).map_err(|source| ShapesError::Read {
        path: path.to_owned(),
        source,
    })?;
    let mut graphs: BTreeMap<String, (GraphName, Vec<Triple>)> = BTreeMap::new();
    // Relative IRIs resolve against the file's own URL, as a browser would.
    let base = std::path::absolute(path)
        .ok()
        .map(|absolute| format!("file://{}", absolute.display()));
    for quad in parser(format, base.as_deref()).for_reader(std::io::BufReader::new(file)) {
        let quad = quad.map_err(|error| match error {
            RdfParseError::Io(source) => ShapesError::Read {
                path: path.to_owned(),
                source,
            },
            RdfParseError::Syntax(error) => ShapesError::Syntax {
                source_name: path.display().to_string(),
                message: error.to_string(),
            },
        })?;
        // The default graph sorts first: its key is empty, and no IRI is.
        let key = match &quad.graph_name {
            GraphName::DefaultGraph => String::new(),
            other => other.to_string(),
        };
        let (_, triples) = graphs
            .entry(key)
            .or_insert_with(|| (quad.graph_name.clone(), Vec::new()));
        triples.push(Triple::from(quad));
    }
    Ok(graphs.into_values().collect())
}

/// A compiled shapes graph, with the `sh:message` of each shape that has one (the engine
/// reports its own messages: ihigraph gives a shape's where it says one).
pub struct Shapes {
    schema: SchemaIR,
    messages: HashMap<Term, String>,
}

impl std::fmt::Debug for Shapes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shapes").finish_non_exhaustive()
    }
}

impl Shapes {
    /// The shapes ihigraph ships ([`SHAPES`]).
    pub fn shipped() -> Result<Self, ShapesError> {
        Self::parse(SHAPES, RdfFormat::Turtle, "ontology/shapes.ttl")
    }

    /// Shapes read from `text` in `format` (its default graph, or all its graphs'
    /// triples); `source_name` names them in errors.
    pub fn parse(text: &str, format: RdfFormat, source_name: &str) -> Result<Self, ShapesError> {
        Self::parse_with_base(text, format, source_name, None)
    }

    /// Shapes read from `text`, its relative IRIs resolved against `base`.
    pub fn parse_with_base(
        text: &str,
        format: RdfFormat,
        source_name: &str,
        base: Option<&str>,
    ) -> Result<Self, ShapesError> {
        let mut graph = InMemoryGraph::new();
        let mut messages = HashMap::new();
        let message = format!("{SH}message");
        for quad in parser(format, base).for_slice(text.as_bytes()) {
            let quad = quad.map_err(|error| ShapesError::Syntax {
                source_name: source_name.to_owned(),
                message: error.to_string(),
            })?;
            if quad.predicate.as_str() == message
                && let Term::Literal(text) = &quad.object
            {
                messages.insert(Term::from(quad.subject.clone()), text.value().to_owned());
            }
            graph
                .add_triple_ref(&quad.subject, &quad.predicate, &quad.object)
                .map_err(|error| ShapesError::Engine(error.to_string()))?;
        }
        let not_shacl = |message: String| ShapesError::NotShacl {
            source_name: source_name.to_owned(),
            message,
        };
        let schema = std::panic::catch_unwind(AssertUnwindSafe(|| {
            let schema = ShaclParser::new(graph)
                .parse()
                .map_err(|error| error.to_string())?;
            SchemaIR::try_from(schema).map_err(|error| error.to_string())
        }))
        .map_err(|panic| ShapesError::Engine(panic_message(&*panic)))?
        .map_err(not_shacl)?;
        Ok(Self { schema, messages })
    }

    /// Validates the triples of one graph against these shapes.
    pub fn validate<'a>(
        &self,
        triples: impl IntoIterator<Item = TripleRef<'a>>,
    ) -> Result<ShapeReport, ShapesError> {
        let mut data = InMemoryGraph::new();
        for triple in triples {
            data.add_triple_ref(triple.subject, triple.predicate, triple.object)
                .map_err(|error| ShapesError::Engine(error.to_string()))?;
        }
        let graph = Graph::from_graph(data).map_err(engine_error)?;
        // The engine panics on some input (literals it cannot order, paths it cannot
        // write): a panic there is an error of this graph, not of the program.
        let report = std::panic::catch_unwind(AssertUnwindSafe(|| {
            GraphValidation::from_graph(graph, ShaclValidationMode::Native).validate(&self.schema)
        }))
        .map_err(|panic| ShapesError::Engine(panic_message(&*panic)))?
        .map_err(engine_error)?;
        let mut results: Vec<ShapeResult> = report
            .results()
            .iter()
            .map(|result| self.result(result))
            .collect();
        results.sort_by_cached_key(ShapeResult::sort_key);
        results.dedup();
        Ok(ShapeReport { results })
    }

    /// A result as ihigraph gives it: components by their IRI, the shape's message.
    fn result(&self, result: &ValidationResult) -> ShapeResult {
        let source_shape = result.source().cloned().map(Term::from);
        let message = source_shape
            .as_ref()
            .and_then(|shape| self.messages.get(shape).cloned())
            .or_else(|| result.message().map(str::to_owned));
        ShapeResult {
            focus: Term::from(result.focus_node().clone()),
            path: result.path().map(ShapePath::of),
            component: component(&Term::from(result.component().clone())),
            source_shape,
            value: result.value().cloned().map(Term::from),
            message,
            severity: NamedNode::new_unchecked(result.severity().to_iri().as_str()),
        }
    }
}

/// What a panic of the engine said.
fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    let text = panic
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| panic.downcast_ref::<&str>().copied())
        .unwrap_or("no message");
    format!("the SHACL engine stopped: {text}")
}

#[allow(clippy::needless_pass_by_value)] // map_err hands the error over by value
fn engine_error(error: Box<ValidateError>) -> ShapesError {
    ShapesError::Engine(error.to_string())
}

/// The constraint component of a result: the engine names some by their parameter
/// (`sh:minCount` for `sh:MinCountConstraintComponent`), SHACL by the component.
fn component(term: &Term) -> NamedNode {
    let Term::NamedNode(iri) = term else {
        return sh("ConstraintComponent");
    };
    match iri.as_str().strip_prefix(SH) {
        Some(local) if !local.ends_with("ConstraintComponent") => {
            let mut chars = local.chars();
            let capital: String = chars
                .next()
                .into_iter()
                .flat_map(char::to_uppercase)
                .collect();
            sh(&format!("{capital}{}ConstraintComponent", chars.as_str()))
        }
        _ => iri.clone(),
    }
}

/// A SHACL property path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShapePath {
    /// A predicate.
    Predicate(NamedNode),
    /// `^path`.
    Inverse(Box<ShapePath>),
    /// `a/b`.
    Sequence(Vec<ShapePath>),
    /// `a|b`.
    Alternative(Vec<ShapePath>),
    /// `path*`.
    ZeroOrMore(Box<ShapePath>),
    /// `path+`.
    OneOrMore(Box<ShapePath>),
    /// `path?`.
    ZeroOrOne(Box<ShapePath>),
}

impl ShapePath {
    fn of(path: &SHACLPath) -> Self {
        let all = |paths: &[SHACLPath]| paths.iter().map(Self::of).collect();
        match path {
            SHACLPath::Predicate { pred } => {
                Self::Predicate(NamedNode::new_unchecked(pred.as_str()))
            }
            SHACLPath::Inverse { path } => Self::Inverse(Box::new(Self::of(path))),
            SHACLPath::Sequence { paths } => Self::Sequence(all(paths)),
            SHACLPath::Alternative { paths } => Self::Alternative(all(paths)),
            SHACLPath::ZeroOrMore { path } => Self::ZeroOrMore(Box::new(Self::of(path))),
            SHACLPath::OneOrMore { path } => Self::OneOrMore(Box::new(Self::of(path))),
            SHACLPath::ZeroOrOne { path } => Self::ZeroOrOne(Box::new(Self::of(path))),
        }
    }

    /// The path as SHACL writes it in RDF (blank nodes and lists, added to `out`).
    fn to_rdf(&self, out: &mut Vec<Triple>) -> Term {
        let node = |out: &mut Vec<Triple>, local: &str, inner: &ShapePath| {
            let node = BlankNode::default();
            let object = inner.to_rdf(out);
            out.push(Triple::new(node.clone(), sh(local), object));
            Term::BlankNode(node)
        };
        match self {
            Self::Predicate(iri) => Term::NamedNode(iri.clone()),
            Self::Inverse(inner) => node(out, "inversePath", inner),
            Self::ZeroOrMore(inner) => node(out, "zeroOrMorePath", inner),
            Self::OneOrMore(inner) => node(out, "oneOrMorePath", inner),
            Self::ZeroOrOne(inner) => node(out, "zeroOrOnePath", inner),
            Self::Sequence(paths) => list(paths, out),
            Self::Alternative(paths) => {
                let node = BlankNode::default();
                let object = list(paths, out);
                out.push(Triple::new(node.clone(), sh("alternativePath"), object));
                Term::BlankNode(node)
            }
        }
    }
}

/// An RDF list of paths.
fn list(paths: &[ShapePath], out: &mut Vec<Triple>) -> Term {
    let mut rest = Term::NamedNode(rdf::NIL.into_owned());
    for path in paths.iter().rev() {
        let node = BlankNode::default();
        let first = path.to_rdf(out);
        out.push(Triple::new(node.clone(), rdf::FIRST, first));
        out.push(Triple::new(node.clone(), rdf::REST, rest));
        rest = Term::BlankNode(node);
    }
    rest
}

impl std::fmt::Display for ShapePath {
    /// The path in SPARQL's syntax.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let join = |f: &mut std::fmt::Formatter<'_>, paths: &[ShapePath], separator: &str| {
            write!(f, "(")?;
            for (index, path) in paths.iter().enumerate() {
                if index > 0 {
                    write!(f, "{separator}")?;
                }
                write!(f, "{path}")?;
            }
            write!(f, ")")
        };
        match self {
            Self::Predicate(iri) => write!(f, "{iri}"),
            Self::Inverse(inner) => write!(f, "^{inner}"),
            Self::Sequence(paths) => join(f, paths, "/"),
            Self::Alternative(paths) => join(f, paths, "|"),
            Self::ZeroOrMore(inner) => write!(f, "({inner})*"),
            Self::OneOrMore(inner) => write!(f, "({inner})+"),
            Self::ZeroOrOne(inner) => write!(f, "({inner})?"),
        }
    }
}

/// One result of a validation report: a focus node that broke a constraint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShapeResult {
    /// The node that broke it.
    pub focus: Term,
    /// The property path of the constraint.
    pub path: Option<ShapePath>,
    /// The constraint component (`sh:MinCountConstraintComponent`, ...).
    pub component: NamedNode,
    /// The shape whose constraint it broke (a blank node for a property shape without
    /// an IRI).
    pub source_shape: Option<Term>,
    /// The value that broke it, when one did.
    pub value: Option<Term>,
    /// The shape's `sh:message`, or the engine's.
    pub message: Option<String>,
    /// `sh:Violation`, `sh:Warning` or `sh:Info`.
    pub severity: NamedNode,
}

impl ShapeResult {
    /// Results in order of focus node, path, component and value, as text.
    fn sort_key(&self) -> (String, Option<String>, String, Option<String>) {
        (
            self.focus.to_string(),
            self.path.as_ref().map(ShapePath::to_string),
            self.component.to_string(),
            self.value.as_ref().map(Term::to_string),
        )
    }

    /// The result as RDF, under `node`.
    fn to_rdf(&self, node: &BlankNode, out: &mut Vec<Triple>) {
        let node = NamedOrBlankNode::BlankNode(node.clone());
        out.push(Triple::new(node.clone(), rdf::TYPE, sh("ValidationResult")));
        out.push(Triple::new(
            node.clone(),
            sh("focusNode"),
            self.focus.clone(),
        ));
        out.push(Triple::new(
            node.clone(),
            sh("sourceConstraintComponent"),
            self.component.clone(),
        ));
        out.push(Triple::new(
            node.clone(),
            sh("resultSeverity"),
            self.severity.clone(),
        ));
        if let Some(path) = &self.path {
            let path = path.to_rdf(out);
            out.push(Triple::new(node.clone(), sh("resultPath"), path));
        }
        if let Some(shape) = &self.source_shape {
            out.push(Triple::new(node.clone(), sh("sourceShape"), shape.clone()));
        }
        if let Some(value) = &self.value {
            out.push(Triple::new(node.clone(), sh("value"), value.clone()));
        }
        if let Some(message) = &self.message {
            out.push(Triple::new(
                node,
                sh("resultMessage"),
                Literal::new_simple_literal(message),
            ));
        }
    }
}

/// A SHACL validation report.
#[derive(Debug, Clone, Default)]
pub struct ShapeReport {
    /// Every result, in a stable order.
    pub results: Vec<ShapeResult>,
}

impl ShapeReport {
    /// Whether the graph conforms: no result, as SHACL defines `sh:conforms`.
    pub fn conforms(&self) -> bool {
        self.results.is_empty()
    }

    /// The report as RDF: an `sh:ValidationReport`, `sh:conforms`, and its results.
    pub fn to_triples(&self) -> Vec<Triple> {
        merged_report([self])
    }
}

/// One validation report, as RDF, for the reports of several graphs: `sh:conforms` true
/// when all conform, with every graph's results.
pub fn merged_report<'a>(reports: impl IntoIterator<Item = &'a ShapeReport>) -> Vec<Triple> {
    let report = BlankNode::default();
    let mut triples = vec![Triple::new(
        report.clone(),
        rdf::TYPE,
        sh("ValidationReport"),
    )];
    let mut conforms = true;
    for part in reports {
        conforms &= part.conforms();
        for result in &part.results {
            let node = BlankNode::default();
            triples.push(Triple::new(report.clone(), sh("result"), node.clone()));
            result.to_rdf(&node, &mut triples);
        }
    }
    triples.push(Triple::new(report, sh("conforms"), Literal::from(conforms)));
    triples
}

fn sh(local: &str) -> NamedNode {
    NamedNode::new_unchecked(format!("{SH}{local}"))
}

/// The triples of a quad, whatever its graph: what [`Shapes::validate`] takes.
pub fn quad_triples(quads: &[Quad]) -> impl Iterator<Item = TripleRef<'_>> {
    quads.iter().map(|quad| TripleRef::from(quad.as_ref()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const EX: &str =
        "@prefix ex: <http://example.org/> .\n@prefix sh: <http://www.w3.org/ns/shacl#> .\n";

    fn triples(text: &str) -> Vec<Triple> {
        RdfParser::from_format(RdfFormat::Turtle)
            .for_slice(format!("{EX}{text}").as_bytes())
            .map(|quad| Triple::from(quad.expect("test data parses")))
            .collect()
    }

    fn shapes(text: &str) -> Shapes {
        Shapes::parse(&format!("{EX}{text}"), RdfFormat::Turtle, "test").expect("test shapes")
    }

    fn iri(local: &str) -> Term {
        NamedNode::new_unchecked(format!("http://example.org/{local}")).into()
    }

    #[test]
    fn the_shipped_shapes_compile() {
        assert!(Shapes::shipped().is_ok());
    }

    #[test]
    fn a_result_has_its_focus_path_component_value_and_the_shapes_message() {
        let shapes = shapes(
            "ex:S a sh:NodeShape ; sh:targetClass ex:C ; sh:property [ sh:path [ sh:inversePath ex:p ] ; sh:maxCount 0 ; sh:message \"none\" ] .",
        );
        let data = triples("ex:a a ex:C . ex:b ex:p ex:a .");
        let report = shapes
            .validate(data.iter().map(Triple::as_ref))
            .expect("validates");
        assert!(!report.conforms());
        let result = &report.results[0];
        assert_eq!(result.focus, iri("a"));
        assert_eq!(
            result.path.as_ref().map(ToString::to_string).as_deref(),
            Some("^<http://example.org/p>")
        );
        assert_eq!(result.component, sh("MaxCountConstraintComponent"));
        assert_eq!(result.message.as_deref(), Some("none"));
        // And as RDF, with the path written as SHACL writes it.
        let rdf = report.to_triples();
        assert!(rdf.iter().any(|t| t.predicate == sh("inversePath")));
        assert!(
            rdf.iter()
                .any(|t| t.predicate == sh("conforms") && t.object == Literal::from(false).into())
        );
    }

    #[test]
    fn a_closed_shape_names_the_node_and_the_value_it_does_not_allow() {
        let shapes = shapes(
            "ex:S a sh:NodeShape ; sh:targetClass ex:C ; sh:closed true ; sh:ignoredProperties ( <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> ) .",
        );
        let data = triples("ex:a a ex:C ; ex:q 3 .");
        let report = shapes
            .validate(data.iter().map(Triple::as_ref))
            .expect("validates");
        assert_eq!(report.results.len(), 1, "{:?}", report.results);
        assert_eq!(report.results[0].focus, iri("a"));
        assert_eq!(report.results[0].value, Some(Literal::from(3).into()));
        assert_eq!(report.results[0].source_shape, Some(iri("S")));
    }

    #[test]
    fn a_panic_of_the_engine_is_an_error_not_a_crash() {
        // rudof_rdf cannot order an integer and a string, and panics comparing them.
        let shapes = shapes(
            "ex:S a sh:NodeShape ; sh:targetNode ex:a ; sh:property [ sh:path ex:p ; sh:lessThan ex:q ] .",
        );
        let data = triples("ex:a ex:p 2 ; ex:q \"b\" .");
        match shapes.validate(data.iter().map(Triple::as_ref)) {
            Err(ShapesError::Engine(message)) => assert!(message.contains("stopped"), "{message}"),
            other => panic!("expected an engine error, got {other:?}"),
        }
    }

    #[test]
    fn shapes_that_do_not_parse_say_where() {
        let error = Shapes::parse(
            "<http://e/a> <http://e/b> \"open",
            RdfFormat::Turtle,
            "s.ttl",
        )
        .expect_err("does not parse");
        let text = error.to_string();
        assert!(
            text.starts_with("s.ttl: ") && text.contains("line 1"),
            "{text}"
        );
    }
}
