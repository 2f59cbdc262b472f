//! Integrity: fingerprints checked against two independent RDFC-1.0 implementations,
//! recorded by ingest, and `verify` naming exactly the session a tamper touched, by
//! fingerprint and against an export.
#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use common::{examples_dir, fixture_path, ihigraph};
use ihigraph::rdf::fingerprint;
use oxigraph::io::{RdfFormat, RdfParser};
use oxrdf::dataset::{CanonicalizationAlgorithm, CanonicalizationHashAlgorithm};
use oxrdf::{Dataset, Quad};
use predicates::str::contains;
use sha2::{Digest, Sha256};
use std::path::Path;

/// SHA-256 of the canonical N-Quads of each fixture, as rdf-canonize 4.0.1 (Digital
/// Bazaar's RDFC-1.0 implementation for JavaScript, from the npm registry) gives them:
/// `canonize(NQuads.parse(text), {algorithm: 'RDFC-1.0', format: 'application/n-quads',
/// maxDeepIterations: 100})` over the fixture without its `#` comment lines, then
/// `sha256sum` of the result. (PyLD 3.3's URDNA2015 agrees on `cycle.nq` and
/// `complete-session.nq`; on `blank-nodes.nq` it writes control characters raw, where
/// RDFC-1.0's canonical N-Quads escape them as `\u0007`.)
const INDEPENDENT: &[(&str, &str)] = &[
    (
        "blank-nodes.nq",
        "6c70668ca2a5b113ac4c5ea7eda21546fe7c5faf8af3f0ea4f7da1a61922bb96",
    ),
    (
        "cycle.nq",
        "f90b17b35c452e9bca1de30ab8d690e73dae8f2ce781e32eb019bb9792f9e713",
    ),
    (
        "complete-session.nq",
        "bb1556a07b929db2afa15d9a5ae6dba32c99fc3248682552a1919bf94802eff7",
    ),
];

fn read_nquads(path: &Path) -> Vec<Quad> {
    RdfParser::from_format(RdfFormat::NQuads)
        .for_slice(&std::fs::read(path).unwrap())
        .collect::<Result<_, _>>()
        .unwrap()
}

/// The SHA-256 of the canonical N-Quads that Oxigraph's own RDFC-1.0 gives.
fn oxigraph_digest(quads: &[Quad]) -> String {
    let mut dataset: Dataset = quads.iter().collect();
    dataset.canonicalize(CanonicalizationAlgorithm::Rdfc10 {
        hash_algorithm: CanonicalizationHashAlgorithm::Sha256,
    });
    let mut lines: Vec<String> = dataset.iter().map(|quad| format!("{quad} .\n")).collect();
    lines.sort();
    Sha256::digest(lines.concat().as_bytes())
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

#[test]
fn fingerprints_agree_with_two_independent_rdfc10_implementations() {
    for (name, expected) in INDEPENDENT {
        let quads = read_nquads(&fixture_path(&format!("integrity/{name}")));
        let print = fingerprint(quads.iter().map(Quad::as_ref)).unwrap();
        assert_eq!(print.digest, *expected, "{name}: rdf-canonize");
        if *name != "blank-nodes.nq" {
            // Oxigraph's N-Quads writer escapes control characters its own way (not the
            // canonical form), so only fixtures without them compare here.
            assert_eq!(print.digest, oxigraph_digest(&quads), "{name}: Oxigraph");
        }
        assert_eq!(print.quads, quads.len());
    }
}

#[test]
fn fingerprints_ignore_blank_node_labels_and_quad_order() {
    let quads = read_nquads(&fixture_path("integrity/cycle.nq"));
    let renamed: Vec<Quad> = quads
        .iter()
        .rev()
        .map(|quad| {
            let text = format!("{quad} .")
                .replace("_:x", "_:q")
                .replace("_:y", "_:x");
            RdfParser::from_format(RdfFormat::NQuads)
                .for_slice(text.as_bytes())
                .next()
                .unwrap()
                .unwrap()
        })
        .collect();
    assert_eq!(
        fingerprint(quads.iter().map(Quad::as_ref)).unwrap(),
        fingerprint(renamed.iter().map(Quad::as_ref)).unwrap()
    );
}

/// A store with the bundled examples, ingested.
fn store_with_examples() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    ihigraph(&dir.path().join("store"))
        .arg("ingest")
        .arg(examples_dir())
        .assert()
        .success();
    dir
}

fn stdout(assert: &assert_cmd::assert::Assert) -> String {
    String::from_utf8(assert.get_output().stdout.clone()).unwrap()
}

/// The sessions a `verify` output names, each at the start of a line.
fn named(output: &str) -> Vec<String> {
    let mut names: Vec<String> = output
        .lines()
        .filter(|line| !line.starts_with(' '))
        .filter(|line| {
            !(line.contains(" of ") && line.contains(" session") && line.contains(" hold"))
        })
        .filter_map(|line| line.split(':').next().map(str::to_owned))
        .collect();
    names.dedup();
    names
}

const GRAPH: &str = "https://w3id.org/ihigraph/id/graph/";
const CH: &str = "https://jido.ai/ontology/conversation-history#";

#[test]
fn ingest_records_fingerprints_that_hash_and_verify_agree_with() {
    let dir = store_with_examples();
    let store = dir.path().join("store");
    let verified = ihigraph(&store).arg("verify").assert().success();
    assert!(
        stdout(&verified).contains("4 of 4 sessions hold"),
        "{}",
        stdout(&verified)
    );
    let hashed = stdout(&ihigraph(&store).args(["hash", "--all"]).assert().success());
    assert_eq!(hashed.lines().count(), 4);
    let records = ihigraph(&store)
        .args([
            "sparql",
            "--format",
            "tsv",
            "SELECT ?id ?f WHERE { GRAPH ?g { ?s <https://w3id.org/ihigraph/ontology#fingerprintedSession> ?id ; <https://w3id.org/ihigraph/ontology#fingerprint> ?f } } ORDER BY ?id",
        ])
        .assert()
        .success();
    for line in stdout(&records).lines().skip(1) {
        let (id, digest) = line.split_once('\t').unwrap();
        let expected = format!("{}  {}", digest.trim_matches('"'), id.trim_matches('"'));
        assert!(hashed.contains(&expected), "{expected} not in {hashed}");
    }
    // Re-ingesting the same input changes nothing, the records included.
    ihigraph(&store)
        .arg("ingest")
        .arg(examples_dir())
        .assert()
        .success();
    let again = ihigraph(&store)
        .args(["sparql", "--format", "tsv", "SELECT ?t WHERE { GRAPH ?g { ?s <https://w3id.org/ihigraph/ontology#fingerprintedAt> ?t } } ORDER BY ?t"])
        .assert()
        .success();
    let first = ihigraph(&store)
        .args(["sparql", "--format", "tsv", "SELECT ?t WHERE { GRAPH ?g { ?s <https://w3id.org/ihigraph/ontology#fingerprintedAt> ?t } } ORDER BY ?t"])
        .assert()
        .success();
    assert_eq!(stdout(&again), stdout(&first));
    assert_eq!(stdout(&again).lines().count(), 5);
}

/// Each tamper, through SPARQL Update, and the one session it touches.
const TAMPERS: &[(&str, &str, &str)] = &[
    (
        "change a literal",
        "abc",
        "DELETE { GRAPH ?g { ?s <CH#answerText> ?o } } INSERT { GRAPH ?g { ?s <CH#answerText> \"rewritten\" } } WHERE { GRAPH ?g { ?s <CH#answerText> ?o } FILTER(?g = <GRAPH#abc> && STRENDS(STR(?s), \"turn/1/answer\")) }",
    ),
    (
        "add a triple",
        "trip-kyoto-2026",
        "INSERT DATA { GRAPH <GRAPH#trip-kyoto-2026> { <urn:x> <urn:added> \"x\" } }",
    ),
    (
        "drop a triple",
        "support-2026-0117-fr",
        "DELETE { GRAPH ?g { ?s <CH#timestamp> ?o } } WHERE { GRAPH ?g { ?s <CH#timestamp> ?o } FILTER(?g = <GRAPH#support-2026-0117-fr> && STRENDS(STR(?s), \"turn/0\")) }",
    ),
    (
        "rename a graph",
        "research-rag-memory",
        "MOVE <GRAPH#research-rag-memory> TO <urn:elsewhere>",
    ),
];

fn tamper(update: &str) -> String {
    update.replace("CH#", CH).replace("GRAPH#", GRAPH)
}

/// SHA-256 (lower-case hex) of the RDFC-1.0 canonical form of an N-Quads text, as a
/// standard tool computes it: parsed by sophia's N-Quads parser, canonicalized by
/// `sophia_c14n`, hashed by `sha2`, none of it through ihigraph's fingerprint code.
fn sophia_fingerprint(nquads: &str) -> String {
    use sophia_api::source::QuadSource;
    type Term = sophia_api::term::SimpleTerm<'static>;
    let dataset: std::collections::HashSet<sophia_api::quad::Spog<Term>> =
        sophia_turtle::parser::nq::parse_str(nquads)
            .collect_quads()
            .unwrap();
    let mut canonical = Vec::new();
    sophia_c14n::rdfc10::normalize(&dataset, &mut canonical).unwrap();
    Sha256::digest(&canonical)
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

/// The graph a stock `oxigraph dump --graph` gives of the store directory (as N-Triples:
/// the graph's triples), each triple put back in its graph.
fn oxigraph_dump(store: &Path, graph: &str) -> String {
    let output = std::process::Command::new("oxigraph")
        .args(["dump", "--location"])
        .arg(store)
        .args(["--format", "nt", "--graph", graph])
        .output()
        .expect("the oxigraph CLI (pip install oxigraph==0.5.13) runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .filter_map(|line| line.strip_suffix(" ."))
        .map(|triple| format!("{triple} <{graph}> .\n"))
        .collect()
}

#[test]
fn hash_is_the_sha256_of_the_canonical_export_and_of_a_stock_dump() {
    let dir = store_with_examples();
    let store = dir.path().join("store");
    let hashes = stdout(&ihigraph(&store).args(["hash", "--all"]).assert().success());
    let mut sessions = 0;
    for line in hashes.lines() {
        let mut fields = line.split_whitespace();
        let (Some(hash), Some(id)) = (fields.next(), fields.next()) else {
            panic!("not `HASH  SESSION`: {line}")
        };
        let export = stdout(
            &ihigraph(&store)
                .args(["export", "--session", id, "--format", "nquads"])
                .assert()
                .success(),
        );
        assert!(
            !export.contains("recentTurns"),
            "{id}: a digest in the export"
        );
        assert_eq!(sophia_fingerprint(&export), hash, "{id}: the export");
        let dump = oxigraph_dump(&store, &format!("{GRAPH}{id}"));
        assert_eq!(dump.lines().count(), export.lines().count(), "{id}");
        assert_eq!(
            sophia_fingerprint(&dump),
            hash,
            "{id}: a stock dump of its graph"
        );
        sessions += 1;
    }
    assert_eq!(sessions, 4, "{hashes}");
    // ...while the store keeps their digests beside the session graphs.
    let all = std::process::Command::new("oxigraph")
        .args(["dump", "--location"])
        .arg(&store)
        .args(["--format", "nq"])
        .output()
        .unwrap();
    let all = String::from_utf8(all.stdout).unwrap();
    let digests: Vec<&str> = all
        .lines()
        .filter(|line| {
            line.split(' ').nth(1) == Some("<https://w3id.org/ihigraph/ontology#recentTurns>")
        })
        .collect();
    assert_eq!(digests.len(), 4);
    for line in digests {
        let graph = line.trim_end_matches(" .").rsplit(' ').next().unwrap();
        assert!(
            graph.starts_with("<https://w3id.org/ihigraph/id/derived/"),
            "{line}"
        );
    }
}

#[test]
fn verify_names_exactly_the_session_each_tamper_touched() {
    for (what, session, update) in TAMPERS {
        let dir = store_with_examples();
        let store = dir.path().join("store");
        ihigraph(&store)
            .args(["sparql", "--update", &tamper(update)])
            .assert()
            .success();
        let verified = ihigraph(&store).arg("verify").assert().code(1);
        let output = stdout(&verified);
        assert_eq!(
            named(&output),
            vec![session.to_string()],
            "{what}:\n{output}"
        );
        assert!(output.contains("3 of 4 sessions hold"), "{what}:\n{output}");
        match *what {
            "change a literal" => assert!(
                output.contains("ch:answerText: values changed among its 4 triples"),
                "{output}"
            ),
            "add a triple" => assert!(output.contains("<urn:added>: 1 triple added"), "{output}"),
            "drop a triple" => assert!(
                output.contains("ch:timestamp: 1 triple removed"),
                "{output}"
            ),
            _ => assert!(
                output.contains("now holds the session, with the recorded triples"),
                "{output}"
            ),
        }
        // Only the one session is named when it is asked for, and the others hold.
        ihigraph(&store).args(["verify", session]).assert().code(1);
        ihigraph(&store)
            .args([
                "verify",
                "abc",
                "trip-kyoto-2026",
                "support-2026-0117-fr",
                "research-rag-memory",
            ])
            .assert()
            .code(1);
        let others: Vec<&str> = [
            "abc",
            "trip-kyoto-2026",
            "support-2026-0117-fr",
            "research-rag-memory",
        ]
        .into_iter()
        .filter(|other| other != session)
        .collect();
        ihigraph(&store)
            .arg("verify")
            .args(&others)
            .assert()
            .success();
    }
}

#[test]
fn verify_against_an_export_shows_the_triples_that_differ() {
    let dir = store_with_examples();
    let store = dir.path().join("store");
    let nquads = dir.path().join("export.nq");
    let trig = dir.path().join("backup.trig");
    let documents = dir.path().join("export.jsonl");
    let export = |format: &str, path: &Path| {
        let out = ihigraph(&store)
            .args(["export", "--format", format])
            .output()
            .unwrap();
        assert!(out.status.success());
        std::fs::write(path, out.stdout).unwrap();
    };
    export("nquads", &nquads);
    export("pgm-ihi", &documents);
    ihigraph(&store).arg("backup").arg(&trig).assert().success();
    for file in [&nquads, &trig, &documents] {
        let held = ihigraph(&store)
            .arg("verify")
            .arg("--against")
            .arg(file)
            .assert()
            .success();
        assert!(
            stdout(&held).contains("4 of 4 sessions hold"),
            "{}",
            stdout(&held)
        );
    }
    ihigraph(&store)
        .args(["sparql", "--update", &tamper(TAMPERS[0].2)])
        .assert()
        .success();
    for file in [&nquads, &documents] {
        let output = stdout(
            &ihigraph(&store)
                .arg("verify")
                .arg("--against")
                .arg(file)
                .assert()
                .code(1),
        );
        assert_eq!(named(&output), vec!["abc".to_owned()], "{output}");
        assert!(
            output.contains("+ ch:answerText: 1 triple only in the store"),
            "{output}"
        );
        assert!(
            output.contains("- ch:answerText: 1 triple only in the export"),
            "{output}"
        );
        assert!(output.contains("\"rewritten\""), "{output}");
    }
    // A session deleted from the store is only in the export.
    ihigraph(&store)
        .args(["delete", "--session", "trip-kyoto-2026"])
        .assert()
        .success();
    let output = stdout(
        &ihigraph(&store)
            .arg("verify")
            .arg("--against")
            .arg(&nquads)
            .assert()
            .code(1),
    );
    assert!(
        output.contains("trip-kyoto-2026: in the export, not in the store"),
        "{output}"
    );
    // It is unknown to the store now, and its record went with it: the store's own
    // verification names the tampered session only.
    ihigraph(&store)
        .args(["verify", "trip-kyoto-2026"])
        .assert()
        .code(1)
        .stderr(contains("trip-kyoto-2026"));
    let output = stdout(&ihigraph(&store).arg("verify").assert().code(1));
    assert_eq!(named(&output), vec!["abc".to_owned()], "{output}");
}

#[test]
fn deleting_a_session_takes_its_record_and_verify_still_holds() {
    let dir = store_with_examples();
    let store = dir.path().join("store");
    let receipt = ihigraph(&store)
        .args(["delete", "--session", "abc"])
        .assert()
        .success();
    assert!(
        stdout(&receipt).contains("fingerprint record: 6 triples removed"),
        "{}",
        stdout(&receipt)
    );
    assert!(
        stdout(&receipt).contains("check: no triple"),
        "{}",
        stdout(&receipt)
    );
    let verified = ihigraph(&store).arg("verify").assert().success();
    assert!(stdout(&verified).contains("3 of 3 sessions hold"));
}

#[test]
fn sessions_without_a_record_are_reported_until_recorded() {
    let dir = store_with_examples();
    let store = dir.path().join("store");
    ihigraph(&store)
        .args([
            "sparql",
            "--update",
            "DROP GRAPH <https://w3id.org/ihigraph/id/fingerprints>",
        ])
        .assert()
        .success();
    let output = stdout(&ihigraph(&store).arg("verify").assert().code(1));
    assert_eq!(named(&output).len(), 4, "{output}");
    assert!(output.contains("abc: no fingerprint recorded"), "{output}");
    ihigraph(&store)
        .args(["hash", "--record", "abc"])
        .assert()
        .success()
        .stderr(contains("recorded the fingerprint of 1 session"));
    let output = stdout(&ihigraph(&store).arg("verify").assert().code(1));
    assert_eq!(named(&output).len(), 3, "{output}");
    ihigraph(&store)
        .args(["hash", "--record", "--all"])
        .assert()
        .success();
    ihigraph(&store).arg("verify").assert().success();
}

#[test]
fn bad_requests_say_what_was_expected() {
    let dir = store_with_examples();
    let store = dir.path().join("store");
    ihigraph(&store)
        .args(["hash", "no-such-session"])
        .assert()
        .code(1)
        .stderr(contains("no-such-session"));
    ihigraph(&store)
        .args(["verify", "no-such-session"])
        .assert()
        .code(1)
        .stderr(contains("no-such-session"));
    ihigraph(&store)
        .arg("hash")
        .assert()
        .code(2)
        .stderr(contains("--all"));
    let text = dir.path().join("export.txt");
    std::fs::write(&text, "x").unwrap();
    ihigraph(&store)
        .arg("verify")
        .arg("--against")
        .arg(&text)
        .assert()
        .code(2)
        .stderr(contains("expected N-Quads (.nq), TriG (.trig), or PGM-IHI"));
    let broken = dir.path().join("broken.nq");
    std::fs::write(&broken, "<urn:a> <urn:b> \"unterminated .\n").unwrap();
    ihigraph(&store)
        .arg("verify")
        .arg("--against")
        .arg(&broken)
        .assert()
        .code(1)
        .stderr(contains("broken.nq"));
    ihigraph(&store)
        .arg("verify")
        .arg("--against")
        .arg(dir.path().join("absent.nq"))
        .assert()
        .failure()
        .stderr(contains("absent.nq"));
}

#[test]
fn exported_documents_carry_their_fingerprint_where_the_standard_leaves_room() {
    let dir = store_with_examples();
    let store = dir.path().join("store");
    // A session whose Data Exchange Metadata has a description of its own.
    let mut described = common::example("code-review-abc.json");
    described["SessionID"] = "described".into();
    described["DataXMData"]["DescrMetadata"] = "reviewed by the QA team".into();
    ihigraph(&store)
        .args(["ingest", "-"])
        .write_stdin(described.to_string())
        .assert()
        .success();
    let exported = ihigraph(&store)
        .args(["export", "--format", "pgm-ihi", "--fingerprint"])
        .assert()
        .success()
        .stderr(contains("described: exported without its fingerprint"));
    let hashes = stdout(&ihigraph(&store).args(["hash", "--all"]).assert().success());
    let mut noted = 0;
    for line in stdout(&exported).lines() {
        let document: serde_json::Value = serde_json::from_str(line).unwrap();
        let id = document["SessionID"].as_str().unwrap();
        let text = document["DataXMData"]["DescrMetadata"].as_str().unwrap();
        if id == "described" {
            assert_eq!(text, "reviewed by the QA team");
            continue;
        }
        let digest = text
            .strip_prefix(ihigraph::integrity::FINGERPRINT_NOTE)
            .and_then(|rest| rest.strip_prefix("RDFC-1.0/SHA-256 "))
            .and_then(|rest| rest.split(' ').next())
            .unwrap_or_else(|| panic!("{id}: {text}"));
        assert!(hashes.contains(&format!("{digest}  {id}")), "{id}: {text}");
        noted += 1;
    }
    assert_eq!(noted, 4);
    // The documents still validate, and the store holds against them.
    let file = dir.path().join("export.jsonl");
    std::fs::write(&file, exported.get_output().stdout.clone()).unwrap();
    ihigraph(&store)
        .arg("validate")
        .arg(&file)
        .assert()
        .success();
    ihigraph(&store)
        .arg("verify")
        .arg("--against")
        .arg(&file)
        .assert()
        .success();
    ihigraph(&store)
        .args(["export", "--format", "nquads", "--fingerprint"])
        .assert()
        .code(2)
        .stderr(contains("--fingerprint goes with --format pgm-ihi"));
}

#[test]
fn fingerprints_taken_of_what_ingest_wrote_hold_for_what_the_store_gives_back() {
    // The embedded store records the fingerprint of the quads written, in the same step:
    // verify, which reads them back, finds the same for every kind of session.
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    common::ingest_examples_and_corpus(&store, &[fixture_path("valid")], 60, 11);
    let imports: Vec<std::path::PathBuf> = common::import_fixtures(false)
        .into_iter()
        .map(|(_, path)| path)
        .filter(|path| {
            !path
                .file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("broken-")
        })
        .collect();
    assert!(imports.len() > 10);
    for file in &imports {
        // Some fixtures need options (a start time): those that refuse are left out here.
        let _ = ihigraph(&store)
            .args(["ingest", "--from", "auto"])
            .arg(file)
            .output()
            .unwrap();
    }
    let output = stdout(&ihigraph(&store).arg("verify").assert().success());
    let holding: usize = output.split(" of ").next().unwrap().parse().unwrap();
    assert!(holding > 70, "{output}");
}

#[test]
fn ingesting_again_repairs_a_missing_or_stale_record() {
    let dir = store_with_examples();
    let store = dir.path().join("store");
    let record =
        "<https://w3id.org/ihigraph/id/graph/abc> <https://w3id.org/ihigraph/ontology#fingerprint>";
    let fingerprints = "<https://w3id.org/ihigraph/id/fingerprints>";
    // abc's record as a crash between a replace and its record would leave it: stale.
    ihigraph(&store)
        .args([
            "sparql",
            "--update",
            &format!(
                "DELETE {{ GRAPH {fingerprints} {{ {record} ?f }} }} INSERT {{ GRAPH {fingerprints} {{ {record} \"{}\" }} }} WHERE {{ GRAPH {fingerprints} {{ {record} ?f }} }}",
                "0".repeat(64)
            ),
        ])
        .assert()
        .success();
    // trip-kyoto-2026's record gone, as a crash between a write and its record leaves it.
    ihigraph(&store)
        .args([
            "sparql",
            "--update",
            &format!("DELETE WHERE {{ GRAPH {fingerprints} {{ <https://w3id.org/ihigraph/id/graph/trip-kyoto-2026> ?p ?o }} }}"),
        ])
        .assert()
        .success();
    let output = stdout(&ihigraph(&store).arg("verify").assert().code(1));
    assert_eq!(
        named(&output),
        vec!["abc".to_owned(), "trip-kyoto-2026".to_owned()],
        "{output}"
    );
    ihigraph(&store)
        .arg("ingest")
        .arg(examples_dir())
        .assert()
        .success()
        .stdout(contains("4 unchanged"));
    ihigraph(&store).arg("verify").assert().success();
}
