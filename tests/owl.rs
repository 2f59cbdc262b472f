//! The ontologies and the data ihigraph writes, checked by real OWL tools: the OWL API's
//! OWL 2 DL profile checker and the HermiT reasoner, from the HermiT.jar that PyPI's
//! `owlready2` ships (HermiT 1.3.8, which bundles the OWL API 3.4.3), driven by
//! `tests/owl/OwlCheck.java`, compiled here with javac. The checker also checks the
//! data's domains and ranges closed-world (a reasoner infers a missing type instead of
//! complaining) and asks HermiT for unsatisfiable classes.
//!
//! - Both ontologies, each alone (`ihigraph.ttl` with the `conversation-history.ttl` it
//!   imports) and together, and with the examples, the complete fixture and a Claude
//!   Code transcript with rewinds (branch sessions linked to where they forked) as the
//!   command line ingests and exports them: no violation of any kind, consistent.
//! - A text holding a character XML 1.0 forbids (U+0007 in a prompt, U+0001 in a
//!   `SessionID`) is stored as written, with a warning; HermiT refuses that literal, and
//!   accepts the same data without it: the verbatim JSON, which escapes it, is fine.
//! - The check has teeth: the `rdf:JSON` range and literals ihigraph had before, a
//!   prompt without its type, and an import that is not given are all reported.
//!
//! Needs python3 with owlready2 (`python3 -m pip install owlready2`) and a JDK (`javac`,
//! `java`: Debian's `default-jdk-headless`); `.ci/bootstrap` installs them. Without them
//! the tests fail, saying so, unless `IHIGRAPH_SKIP_OWL=1`, when they say they skipped.
#![allow(clippy::unwrap_used, clippy::panic, clippy::print_stdout)]

mod common;

use common::{examples_dir, fixture, fixture_path, ihigraph, mutated};
use oxigraph::io::{RdfFormat, RdfParser, RdfSerializer};
use oxigraph::model::{Literal, NamedNode, Quad, Term};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::Command;

const CH: &str = "https://jido.ai/ontology/conversation-history#";
const RAW_JSON: &str = "https://w3id.org/ihigraph/ontology#rawJson";
const RDF_TYPE: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type";
const RDF_JSON: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#JSON";

fn ontology(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("ontology")
        .join(name)
}

/// The HermiT jar owlready2 installed, or why there is none.
fn hermit_jar() -> Result<PathBuf, String> {
    let output = Command::new("python3")
        .args([
            "-c",
            "import owlready2, os; print(os.path.dirname(owlready2.__file__))",
        ])
        .output()
        .map_err(|error| format!("python3: {error}"))?;
    if !output.status.success() {
        return Err(String::from_utf8_lossy(&output.stderr).into_owned());
    }
    let jar =
        PathBuf::from(String::from_utf8_lossy(&output.stdout).trim()).join("hermit/HermiT.jar");
    if jar.is_file() {
        Ok(jar)
    } else {
        Err(format!("{} is missing", jar.display()))
    }
}

/// Whether `javac` and `java` run.
fn jdk() -> Result<(), String> {
    for tool in ["javac", "java"] {
        let output = Command::new(tool)
            .arg("-version")
            .output()
            .map_err(|error| format!("{tool}: {error}"))?;
        if !output.status.success() {
            return Err(format!("{tool} -version failed"));
        }
    }
    Ok(())
}

/// `OwlCheck.java` compiled, with the jar it runs against.
struct Checker {
    jar: PathBuf,
    classes: PathBuf,
}

/// What the checker said about some files.
struct Report {
    passed: bool,
    text: String,
}

impl Checker {
    /// The checker, compiled into `dir`; `None` (after saying so) when the tools are
    /// absent and `IHIGRAPH_SKIP_OWL=1` says to skip.
    fn new(dir: &Path) -> Option<Self> {
        let jar = match jdk().and_then(|()| hermit_jar()) {
            Ok(jar) => jar,
            Err(why) if std::env::var("IHIGRAPH_SKIP_OWL").as_deref() == Ok("1") => {
                println!("skipped, as IHIGRAPH_SKIP_OWL=1 says: the OWL check needs {why}");
                return None;
            }
            Err(why) => panic!(
                "the OWL check needs python3 with owlready2 and a JDK ({why}): \
                 python3 -m pip install owlready2; apt-get install default-jdk-headless \
                 (or run .ci/bootstrap); or set IHIGRAPH_SKIP_OWL=1 to skip it"
            ),
        };
        let classes = dir.join("classes");
        let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/owl/OwlCheck.java");
        let output = Command::new("javac")
            .arg("-nowarn")
            .arg("-cp")
            .arg(&jar)
            .arg("-d")
            .arg(&classes)
            .arg(source)
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "OwlCheck.java does not compile:\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
        Some(Self { jar, classes })
    }

    /// Runs the checker on `files`.
    fn check(&self, files: &[&Path]) -> Report {
        let classpath = format!("{}:{}", self.jar.display(), self.classes.display());
        let output = Command::new("java")
            .arg("-cp")
            .arg(classpath)
            .arg("OwlCheck")
            .args(files)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&output.stdout).into_owned()
            + &String::from_utf8_lossy(&output.stderr);
        println!("{files:?}:\n{text}");
        Report {
            passed: output.status.success(),
            text,
        }
    }
}

impl Report {
    /// The count on the checker's summary line about `what`.
    fn count(&self, what: &str) -> usize {
        self.text
            .lines()
            .find(|line| line.contains(what))
            .and_then(|line| line.split(' ').next())
            .and_then(|count| count.parse().ok())
            .unwrap_or_else(|| panic!("no count of {what}:\n{}", self.text))
    }

    fn profile_violations(&self) -> usize {
        self.count(" OWL 2 DL profile violations in ")
    }

    fn closed_world_violations(&self) -> usize {
        self.count(" closed-world domain and range violations in ")
    }

    /// No violation of any kind, consistent, no unsatisfiable class.
    fn assert_clean(&self) {
        assert!(self.passed, "{}", self.text);
        assert_eq!(self.profile_violations(), 0, "{}", self.text);
        assert_eq!(self.closed_world_violations(), 0, "{}", self.text);
        assert!(self.text.contains("HermiT: consistent"), "{}", self.text);
        assert_eq!(self.count(" unsatisfiable classes"), 0, "{}", self.text);
    }
}

/// What the command line makes of `documents`: the N-Quads it exports, and what
/// `ingest` said on standard error.
fn ingest_and_export(store: &Path, documents: &[PathBuf]) -> (Vec<u8>, String) {
    let ingest = ihigraph(store)
        .arg("ingest")
        .args(documents)
        .assert()
        .success();
    let warnings = String::from_utf8_lossy(&ingest.get_output().stderr).into_owned();
    let export = ihigraph(store)
        .args(["export", "--format", "nquads"])
        .assert()
        .success();
    (export.get_output().stdout.clone(), warnings)
}

/// The quads, each passed through `edit` (which may drop it), as an N-Triples file
/// (graph names dropped) whose ontology imports ihigraph's, so that the OWL API knows
/// each property's kind.
fn data_file(path: &Path, nquads: &[u8], edit: &dyn Fn(Quad) -> Option<Quad>) -> PathBuf {
    let header = "<urn:ihigraph:data> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://www.w3.org/2002/07/owl#Ontology> .\n\
                  <urn:ihigraph:data> <http://www.w3.org/2002/07/owl#imports> <https://w3id.org/ihigraph/ontology> .\n";
    let mut serializer =
        RdfSerializer::from_format(RdfFormat::NTriples).for_writer(header.as_bytes().to_vec());
    for quad in RdfParser::from_format(RdfFormat::NQuads).for_slice(nquads) {
        if let Some(quad) = edit(quad.unwrap()) {
            serializer.serialize_triple(quad.as_ref()).unwrap();
        }
    }
    std::fs::write(path, serializer.finish().unwrap()).unwrap();
    path.to_path_buf()
}

/// Every quad, as it is.
fn keep(quad: Quad) -> Option<Quad> {
    Some(quad)
}

/// Whether the quad's object is a literal that holds `c`.
fn holds(quad: &Quad, c: char) -> bool {
    matches!(&quad.object, Term::Literal(literal) if literal.value().contains(c))
}

#[test]
fn ontologies_and_data_are_owl2_dl_and_consistent() {
    let dir = tempfile::tempdir().unwrap();
    let Some(checker) = Checker::new(dir.path()) else {
        return;
    };
    let ch = ontology("conversation-history.ttl");
    let ihi = ontology("ihigraph.ttl");
    // What is checked is what the binary ships.
    let shipped = String::from_utf8(common::shipped_ontologies()).unwrap();
    for file in [&ch, &ihi] {
        let text = std::fs::read_to_string(file).unwrap();
        assert!(shipped.contains(&text), "{} is not shipped", file.display());
    }
    // With branches linked to the sessions they forked from (a Claude Code transcript
    // with rewinds), so that the links' domains, ranges and PROV super-properties are
    // checked too.
    ihigraph(&dir.path().join("store"))
        .args(["ingest", "--from", "anthropic"])
        .arg(fixture_path("import/anthropic/claude-code-rewinds.jsonl"))
        .assert()
        .success();
    // Not numbers-and-strings.json: its SessionID holds U+0001, which XML (and so
    // HermiT) forbids; see texts_with_characters_xml_forbids_are_kept_and_only_they_refused.
    let (nquads, _) = ingest_and_export(
        &dir.path().join("store"),
        &[examples_dir(), fixture_path("valid/complete.json")],
    );
    let data = data_file(&dir.path().join("data.nt"), &nquads, &keep);
    for files in [
        vec![ch.as_path()],
        vec![ihi.as_path(), ch.as_path()],
        vec![ch.as_path(), ihi.as_path(), data.as_path()],
    ] {
        checker.check(&files).assert_clean();
    }
}

/// The complete fixture as a session `name` whose first prompt ends with `c`, written
/// into `dir`.
fn complete_with(dir: &Path, name: &str, c: char) -> PathBuf {
    let document = mutated(
        &mutated(
            &fixture("valid/complete.json"),
            "/SessionID",
            Some(json!(name)),
        ),
        "/Turns/0/PRCPrompt/messages/0/content",
        Some(json!(format!("Read config.exs, please.{c}"))),
    );
    let path = dir.join(format!("{name}.json"));
    std::fs::write(&path, serde_json::to_string(&document).unwrap()).unwrap();
    path
}

/// `document`, whose texts hold `c`, a character XML 1.0 forbids: ingest warns, the
/// store keeps the text as written, the verbatim JSON holds it escaped, and HermiT
/// refuses the text's literal and nothing else.
fn kept_and_only_it_refused(checker: &Checker, dir: &Path, document: PathBuf, c: char) {
    let (ch, ihi) = (
        ontology("conversation-history.ttl"),
        ontology("ihigraph.ttl"),
    );
    let name = format!("{:04X}", u32::from(c));
    let (nquads, warnings) = ingest_and_export(&dir.join(format!("{name}-store")), &[document]);
    assert!(warnings.contains(&format!("U+{name}")), "{warnings}");
    let quads: Vec<Quad> = RdfParser::from_format(RdfFormat::NQuads)
        .for_slice(&nquads)
        .collect::<Result<_, _>>()
        .unwrap();
    assert!(
        quads.iter().any(|quad| holds(quad, c)),
        "U+{name} is not kept"
    );
    for quad in &quads {
        assert!(
            quad.predicate.as_str() != RAW_JSON || !holds(quad, c),
            "the verbatim JSON holds U+{name} unescaped: {quad}"
        );
    }
    let data = data_file(&dir.join(format!("{name}.nt")), &nquads, &keep);
    let report = checker.check(&[&ch, &ihi, &data]);
    assert!(!report.passed, "{}", report.text);
    assert_eq!(report.profile_violations(), 0, "{}", report.text);
    assert_eq!(report.closed_world_violations(), 0, "{}", report.text);
    assert!(
        report.text.contains("HermiT refused") && report.text.contains("Malformed"),
        "{}",
        report.text
    );
    let without = dir.join(format!("{name}-without.nt"));
    let without = data_file(&without, &nquads, &|quad: Quad| {
        (!holds(&quad, c)).then_some(quad)
    });
    checker.check(&[&ch, &ihi, &without]).assert_clean();
}

#[test]
fn texts_with_characters_xml_forbids_are_kept_and_only_they_refused() {
    let dir = tempfile::tempdir().unwrap();
    let Some(checker) = Checker::new(dir.path()) else {
        return;
    };
    let bell = complete_with(dir.path(), "fixture-bell", '\u{7}');
    kept_and_only_it_refused(&checker, dir.path(), bell, '\u{7}');
    // Its SessionID holds U+0001 (no payload holds the SessionID).
    let one = fixture_path("valid/numbers-and-strings.json");
    kept_and_only_it_refused(&checker, dir.path(), one, '\u{1}');
}

#[test]
fn verbatim_json_escapes_the_noncharacters_xml_forbids() {
    // serde_json escapes control characters (U+0007 is written \u0007) but not U+FFFE
    // and U+FFFF, which XML 1.0 forbids as well: the mapper escapes them itself, so that
    // the verbatim JSON (the same JSON value) is always a literal OWL tools accept.
    let dir = tempfile::tempdir().unwrap();
    let Some(checker) = Checker::new(dir.path()) else {
        return;
    };
    for c in ['\u{FFFE}', '\u{FFFF}'] {
        let document = complete_with(dir.path(), &format!("fixture-{:04x}", u32::from(c)), c);
        kept_and_only_it_refused(&checker, dir.path(), document, c);
    }
}

#[test]
fn the_check_refuses_what_owl_tools_refuse() {
    let dir = tempfile::tempdir().unwrap();
    let Some(checker) = Checker::new(dir.path()) else {
        return;
    };
    let (ch, ihi) = (
        ontology("conversation-history.ttl"),
        ontology("ihigraph.ttl"),
    );
    // The range the ontology had before: rdf:JSON, outside OWL 2's datatype map.
    let json_range = dir.path().join("json-range.ttl");
    std::fs::write(
        &json_range,
        "@prefix owl: <http://www.w3.org/2002/07/owl#> .\n\
         @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n\
         <urn:x:o> a owl:Ontology .\n\
         <urn:x:raw> a owl:DatatypeProperty ; rdfs:range <http://www.w3.org/1999/02/22-rdf-syntax-ns#JSON> .\n",
    )
    .unwrap();
    let report = checker.check(&[&json_range]);
    assert!(
        !report.passed && report.profile_violations() > 0,
        "{}",
        report.text
    );
    // The literals ihigraph wrote before: rdf:JSON, which HermiT lets pass.
    let (nquads, _) = ingest_and_export(&dir.path().join("store"), &[examples_dir()]);
    let rdf_json = data_file(
        &dir.path().join("rdf-json.nt"),
        &nquads,
        &|mut quad: Quad| {
            let typed = match &quad.object {
                Term::Literal(literal) if quad.predicate.as_str() == RAW_JSON => Some(
                    Literal::new_typed_literal(literal.value(), NamedNode::new_unchecked(RDF_JSON)),
                ),
                _ => None,
            };
            if let Some(typed) = typed {
                quad.object = typed.into();
            }
            Some(quad)
        },
    );
    let report = checker.check(&[&ch, &ihi, &rdf_json]);
    assert!(!report.passed, "{}", report.text);
    assert!(
        report.text.contains("Use of unknown datatype: rdf:JSON"),
        "{}",
        report.text
    );
    assert!(report.closed_world_violations() > 0, "{}", report.text);
    // Prompts without their type: consistent (a reasoner infers the type), but not as
    // ihigraph promises to write them.
    let prompt = format!("<{CH}Prompt>");
    let untyped = data_file(&dir.path().join("untyped.nt"), &nquads, &|quad: Quad| {
        (quad.predicate.as_str() != RDF_TYPE || quad.object.to_string() != prompt).then_some(quad)
    });
    let report = checker.check(&[&ch, &ihi, &untyped]);
    assert!(!report.passed, "{}", report.text);
    assert!(report.closed_world_violations() > 0, "{}", report.text);
    assert!(
        report.text.contains("is not in the domain"),
        "{}",
        report.text
    );
    assert!(
        report.text.contains("HermiT: consistent"),
        "{}",
        report.text
    );
    // An import whose file is not given is an error, and nothing is fetched.
    let report = checker.check(&[&ihi]);
    assert!(!report.passed, "{}", report.text);
    assert!(report.text.contains("cannot load"), "{}", report.text);
}
