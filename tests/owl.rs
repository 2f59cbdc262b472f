//! The ontologies and the data ihigraph writes, checked by real OWL tools: the OWL API's
//! OWL 2 DL profile checker and the HermiT reasoner, from the HermiT.jar that PyPI's
//! `owlready2` ships, driven by `tests/owl/OwlCheck.java` (compiled here with javac).
//! Both ontologies alone and together, and together with the mapped examples and the
//! complete fixture, must show no profile violation and be consistent. A text holding a
//! character XML 1.0 forbids (U+0001, U+0007) is stored as written, with a warning:
//! HermiT refuses such a literal, and a test here shows that it does.
//!
//! Needs python3 with owlready2 (`pip install owlready2`) and a JDK (`javac`, `java`);
//! `.ci/bootstrap` installs them. Without them the test fails, unless
//! `IHIGRAPH_SKIP_OWL=1`, when it says it skipped.
#![allow(clippy::unwrap_used, clippy::panic, clippy::print_stdout)]

use ihigraph::{HistoryStore, Ingest};
use oxigraph::io::{RdfFormat, RdfParser, RdfSerializer};
use std::path::{Path, PathBuf};
use std::process::Command;

fn manifest() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
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

/// The checker, compiled into `dir`; `None` (after saying so) when the tools are absent
/// and `IHIGRAPH_SKIP_OWL=1` says to skip.
fn checker(dir: &Path) -> Option<PathBuf> {
    let jar = match hermit_jar() {
        Ok(jar) => jar,
        Err(why) if std::env::var("IHIGRAPH_SKIP_OWL").as_deref() == Ok("1") => {
            println!("skipped: no HermiT from owlready2 ({why}), and IHIGRAPH_SKIP_OWL=1");
            return None;
        }
        Err(why) => panic!(
            "the OWL check needs owlready2's HermiT ({why}): pip install owlready2, or set IHIGRAPH_SKIP_OWL=1 to skip"
        ),
    };
    let status = Command::new("javac")
        .arg("-nowarn")
        .arg("-cp")
        .arg(&jar)
        .arg("-d")
        .arg(dir)
        .arg(manifest().join("tests/owl/OwlCheck.java"))
        .status()
        .unwrap_or_else(|error| {
            panic!("javac: {error} (install a JDK, e.g. default-jdk-headless)")
        });
    assert!(status.success(), "OwlCheck.java does not compile");
    Some(jar)
}

/// Runs the checker on `files`: whether it passed, and what it said.
fn check(jar: &Path, classes: &Path, files: &[&Path]) -> (bool, String) {
    let classpath = format!("{}:{}", jar.display(), classes.display());
    let output = Command::new("java")
        .arg("-cp")
        .arg(classpath)
        .arg("OwlCheck")
        .args(files)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&output.stdout).into_owned()
        + &String::from_utf8_lossy(&output.stderr);
    (output.status.success(), text)
}

/// The mapped examples and valid fixtures, as N-Triples (the union of their graphs),
/// in an ontology document that imports ihigraph's.
fn data(dir: &Path) -> PathBuf {
    let store = HistoryStore::in_memory(&Default::default()).unwrap();
    let summary = Ingest::new(&store)
        .run_paths(
            &[
                manifest().join("examples/histories"),
                // Not numbers-and-strings.json: its SessionID holds U+0001, which XML
                // (and so HermiT) forbids; see the_check_refuses_what_owl_tools_refuse.
                manifest().join("tests/fixtures/valid/complete.json"),
            ],
            |_| {},
        )
        .unwrap();
    assert!(
        summary.sessions == 5 && summary.refused.is_empty(),
        "{summary:?}"
    );
    let mut nquads = Vec::new();
    store
        .export(&mut nquads, ihigraph::ExportFormat::NQuads, None)
        .unwrap();
    // The data imports the ontologies, so that its parser knows each property's kind.
    let header = "<urn:ihigraph:data> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://www.w3.org/2002/07/owl#Ontology> .\n\
                  <urn:ihigraph:data> <http://www.w3.org/2002/07/owl#imports> <https://w3id.org/ihigraph/ontology> .\n";
    let mut serializer =
        RdfSerializer::from_format(RdfFormat::NTriples).for_writer(header.as_bytes().to_vec());
    for quad in RdfParser::from_format(RdfFormat::NQuads).for_slice(&nquads) {
        serializer.serialize_triple(quad.unwrap().as_ref()).unwrap();
    }
    let path = dir.join("data.nt");
    std::fs::write(&path, serializer.finish().unwrap()).unwrap();
    path
}

#[test]
fn ontologies_and_data_are_owl2_dl_and_consistent() {
    let dir = tempfile::tempdir().unwrap();
    let Some(jar) = checker(dir.path()) else {
        return;
    };
    let ch = manifest().join("ontology/conversation-history.ttl");
    let ihi = manifest().join("ontology/ihigraph.ttl");
    let data = data(dir.path());
    for files in [vec![&ch], vec![&ihi, &ch], vec![&ch, &ihi, &data]] {
        let files: Vec<&Path> = files.iter().map(|p| p.as_path()).collect();
        let (passed, report) = check(&jar, dir.path(), &files);
        println!("{files:?}:\n{report}");
        assert!(passed, "{files:?}:\n{report}");
        assert!(report.contains("0 OWL 2 DL profile violations"), "{report}");
        assert!(report.contains("HermiT: consistent"), "{report}");
    }
}

#[test]
fn the_check_refuses_what_owl_tools_refuse() {
    // So that a pass above means something: the range the ontology had before (rdf:JSON,
    // outside OWL 2's datatype map) and a text holding U+0007 (outside XML's characters,
    // which ihigraph stores as written and warns about) are both refused.
    let dir = tempfile::tempdir().unwrap();
    let Some(jar) = checker(dir.path()) else {
        return;
    };
    let ch = manifest().join("ontology/conversation-history.ttl");
    let ihi = manifest().join("ontology/ihigraph.ttl");
    let json_range = dir.path().join("json-range.ttl");
    std::fs::write(
        &json_range,
        "@prefix owl: <http://www.w3.org/2002/07/owl#> .\n\
         @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n\
         <urn:x:o> a owl:Ontology .\n\
         <urn:x:raw> a owl:DatatypeProperty ; rdfs:range <http://www.w3.org/1999/02/22-rdf-syntax-ns#JSON> .\n",
    )
    .unwrap();
    let (passed, report) = check(&jar, dir.path(), &[&json_range]);
    assert!(!passed, "{report}");
    assert!(report.contains("violation"), "{report}");
    let bell = dir.path().join("bell.nt");
    std::fs::write(
        &bell,
        "<urn:x:d> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://www.w3.org/2002/07/owl#Ontology> .\n\
         <urn:x:d> <http://www.w3.org/2002/07/owl#imports> <https://w3id.org/ihigraph/ontology> .\n\
         <urn:x:p> <https://jido.ai/ontology/conversation-history#promptText> \"ring \\u0007 here\" .\n",
    )
    .unwrap();
    let (passed, report) = check(&jar, dir.path(), &[&ch, &ihi, &bell]);
    assert!(!passed, "{report}");
}
