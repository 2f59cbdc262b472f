//! The fingerprint of a session: the SHA-256 of the RDFC-1.0 canonical N-Quads of the
//! quads its graph holds (W3C RDF Dataset Canonicalization, by `sophia_c14n`), with a
//! manifest of the same lines grouped by predicate, so that a changed session can be
//! told apart by what changed: triples added or removed, or values changed, predicate
//! by predicate.

use oxrdf::{GraphNameRef, NamedOrBlankNodeRef, QuadRef, TermRef};
use sha2::{Digest, Sha256};
use sophia_api::MownStr;
use sophia_api::term::{BnodeId, IriRef, LanguageTag, SimpleTerm};
use std::collections::{BTreeMap, HashSet};
use std::fmt::{self, Write as _};
use std::ops::Range;

/// The algorithm a fingerprint names: RDFC-1.0 with SHA-256 for the blank nodes, and
/// SHA-256 over the canonical N-Quads.
pub const FINGERPRINT_ALGORITHM: &str = "RDFC-1.0/SHA-256";

/// The fingerprint of a set of quads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fingerprint {
    /// SHA-256 of the canonical N-Quads document, lower-case hex.
    pub digest: String,
    /// How many quads it covers.
    pub quads: usize,
    /// The same lines, predicate by predicate.
    pub manifest: Manifest,
}

/// Per predicate IRI: how many canonical lines have it, and the SHA-256 of those lines.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Manifest(pub BTreeMap<String, PredicateLines>);

/// The canonical lines of one predicate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PredicateLines {
    /// How many.
    pub count: usize,
    /// SHA-256 of the lines in canonical order, lower-case hex.
    pub digest: String,
}

/// How one predicate differs between a recorded manifest and a recomputed one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PredicateChange {
    /// The predicate IRI.
    pub predicate: String,
    /// Triples of it before.
    pub before: usize,
    /// Triples of it now.
    pub after: usize,
}

impl PredicateChange {
    /// Whether as many triples are there as before, with other values.
    pub fn values_changed(&self) -> bool {
        self.before == self.after
    }
}

/// What `sophia_c14n` refused: a dataset whose blank nodes would need more work than
/// its limits allow (a crafted, highly symmetric graph), which ihigraph never writes.
#[derive(Debug, thiserror::Error)]
#[error("the graph cannot be canonicalized (RDFC-1.0): {0}")]
pub struct FingerprintError(String);

/// The fingerprint of the given quads, each counted once: of a session, every quad of its
/// graph, which holds the session and nothing derived from it.
///
/// ```
/// use ihigraph::rdf::fingerprint;
/// use oxrdf::{GraphNameRef, LiteralRef, NamedNodeRef, QuadRef};
/// let graph = NamedNodeRef::new_unchecked("https://example.org/g");
/// let quad = QuadRef::new(graph, graph, LiteralRef::new_simple_literal("x"), GraphNameRef::NamedNode(graph));
/// let print = fingerprint([quad, quad])?;
/// assert_eq!(print.quads, 1);
/// assert_eq!(print.digest.len(), 64);
/// # Ok::<_, ihigraph::rdf::FingerprintError>(())
/// ```
pub fn fingerprint<'a>(
    quads: impl IntoIterator<Item = QuadRef<'a>>,
) -> Result<Fingerprint, FingerprintError> {
    Ok(match canonical(quads)? {
        Canonical::Relabelled(document, count) => Fingerprint::of_canonical(&document, count),
        // The lines hashed as they come in order, never joined into one document.
        Canonical::Sorted(lines) => Fingerprint::of_lines(lines.lines(), lines.len()),
    })
}

/// The RDFC-1.0 canonical N-Quads document of the given quads (each counted once), with
/// the number of its lines.
pub fn canonical_nquads<'a>(
    quads: impl IntoIterator<Item = QuadRef<'a>>,
) -> Result<(String, usize), FingerprintError> {
    Ok(match canonical(quads)? {
        Canonical::Relabelled(document, count) => (document, count),
        Canonical::Sorted(lines) => lines.document(),
    })
}

/// The canonical form of a set of quads, made the one way or the other.
enum Canonical {
    /// By `sophia_c14n`, blank nodes relabelled: the document and its number of lines.
    Relabelled(String, usize),
    /// Quads without blank nodes: their lines, sorted.
    Sorted(SortedLines),
}

/// The canonical form of the given quads: their sorted lines when no quad names a blank
/// node (nothing to relabel), else `sophia_c14n`'s document.
fn canonical<'a>(
    quads: impl IntoIterator<Item = QuadRef<'a>>,
) -> Result<Canonical, FingerprintError> {
    let quads: Vec<QuadRef<'a>> = quads.into_iter().collect();
    if quads.iter().any(|quad| has_blank_node(*quad)) {
        let (document, count) = relabelled_lines(quads)?;
        Ok(Canonical::Relabelled(document, count))
    } else {
        Ok(Canonical::Sorted(SortedLines::of(&quads)))
    }
}

/// The canonical N-Quads document by `sophia_c14n`, blank nodes relabelled.
fn relabelled_lines(quads: Vec<QuadRef<'_>>) -> Result<(String, usize), FingerprintError> {
    let dataset: HashSet<([SimpleTerm<'_>; 3], Option<SimpleTerm<'_>>)> = quads
        .into_iter()
        .map(|quad| {
            (
                [
                    subject(quad.subject),
                    iri(quad.predicate.as_str()),
                    term(quad.object),
                ],
                graph(quad.graph_name),
            )
        })
        .collect();
    let mut canonical = Vec::new();
    sophia_c14n::rdfc10::normalize(&dataset, &mut canonical)
        .map_err(|error| FingerprintError(error.to_string()))?;
    let text = String::from_utf8(canonical).map_err(|error| FingerprintError(error.to_string()))?;
    Ok((text, dataset.len()))
}

/// Whether a quad names a blank node anywhere.
fn has_blank_node(quad: QuadRef<'_>) -> bool {
    quad.subject.is_blank_node() || quad.object.is_blank_node() || quad.graph_name.is_blank_node()
}

/// The canonical lines of quads without blank nodes: with nothing to relabel, RDFC-1.0's
/// document is each distinct quad's line, sorted in code point order (UTF-8 byte order).
/// Each line (with its `.\n`) is written once, one after the other into one buffer (not a
/// string each), and the lines sorted as byte strings, where `sophia_c14n` sorts the quads
/// by writing their terms again at every comparison: a session's fingerprint took half of
/// writing it (`perf`, a bulk write of 1,000 messages). The same bytes as `sophia_c14n`
/// (tests below compare both on every kind of term and on every character that is
/// escaped).
struct SortedLines {
    text: String,
    lines: Vec<Range<usize>>,
}

impl SortedLines {
    fn of(quads: &[QuadRef<'_>]) -> Self {
        let mut text = String::with_capacity(quads.len() * 128);
        let mut lines = Vec::with_capacity(quads.len());
        for quad in quads {
            let start = text.len();
            canonical_term(quad.subject.into(), &mut text);
            canonical_term(quad.predicate.into(), &mut text);
            canonical_term(quad.object, &mut text);
            if let GraphNameRef::NamedNode(graph) = quad.graph_name {
                canonical_term(graph.into(), &mut text);
            }
            text.push_str(".\n");
            lines.push(start..text.len());
        }
        let bytes = text.as_bytes();
        lines.sort_unstable_by(|a, b| bytes[a.clone()].cmp(&bytes[b.clone()]));
        lines.dedup_by(|a, b| bytes[a.clone()] == bytes[b.clone()]);
        Self { text, lines }
    }

    fn len(&self) -> usize {
        self.lines.len()
    }

    fn lines(&self) -> impl Iterator<Item = &str> {
        self.lines.iter().map(|line| &self.text[line.clone()])
    }

    /// The canonical document the lines make, and their number.
    fn document(&self) -> (String, usize) {
        let mut document = String::with_capacity(self.text.len());
        self.lines().for_each(|line| document.push_str(line));
        (document, self.len())
    }
}

/// A term of a quad without blank nodes in canonical N-Quads, with the space after it:
/// an IRI as is, a literal with `"`, `\` and the control characters escaped (the short
/// escapes where N-Quads has one, else `\u00XX`), its language tag, or its datatype
/// unless `xsd:string`.
fn canonical_term(term: TermRef<'_>, out: &mut String) {
    match term {
        TermRef::NamedNode(node) => {
            out.push('<');
            out.push_str(node.as_str());
            out.push('>');
        }
        TermRef::Literal(literal) => {
            out.push('"');
            for c in literal.value().chars() {
                match c {
                    '"' => out.push_str("\\\""),
                    '\\' => out.push_str("\\\\"),
                    '\n' => out.push_str("\\n"),
                    '\r' => out.push_str("\\r"),
                    '\t' => out.push_str("\\t"),
                    '\x08' => out.push_str("\\b"),
                    '\x0c' => out.push_str("\\f"),
                    '\x7f' => out.push_str("\\u007F"),
                    c if c <= '\x1f' => {
                        // Infallible: writing to a String.
                        let _ = write!(out, "\\u{:04X}", u32::from(c));
                    }
                    c => out.push(c),
                }
            }
            out.push('"');
            if let Some(language) = literal.language() {
                out.push('@');
                out.push_str(language);
            } else if literal.datatype() != oxrdf::vocab::xsd::STRING {
                out.push_str("^^<");
                out.push_str(literal.datatype().as_str());
                out.push('>');
            }
        }
        // Not reached: only quads without blank nodes are written this way.
        TermRef::BlankNode(node) => {
            out.push_str("_:");
            out.push_str(node.as_str());
        }
        // An RDF 1.2 triple term (Oxigraph's `rdf-12`, which the SHACL engine needs):
        // ihigraph never writes one, but a SPARQL update may.
        TermRef::Triple(triple) => {
            out.push_str("<<( ");
            canonical_term(triple.subject.as_ref().into(), out);
            canonical_term(triple.predicate.as_ref().into(), out);
            canonical_term(triple.object.as_ref(), out);
            out.push_str(")>>");
        }
    }
    out.push(' ');
}

impl Fingerprint {
    /// The fingerprint of a canonical N-Quads document of `quads` lines.
    pub fn of_canonical(canonical: &str, quads: usize) -> Self {
        Self::of_lines(canonical.split_inclusive('\n'), quads)
    }

    /// The fingerprint of a canonical N-Quads document given as its lines in order, each
    /// with its line feed: the document's digest and each predicate's, in one pass.
    fn of_lines<'a>(lines: impl Iterator<Item = &'a str>, quads: usize) -> Self {
        let mut whole = Sha256::new();
        let mut groups: BTreeMap<&str, (usize, Sha256)> = BTreeMap::new();
        for line in lines {
            whole.update(line.as_bytes());
            let (count, hasher) = groups.entry(predicate_of(line)).or_default();
            *count += 1;
            hasher.update(line.as_bytes());
        }
        let digest = hex::encode(whole.finalize());
        let manifest = Manifest(
            groups
                .into_iter()
                .map(|(predicate, (count, hasher))| {
                    let digest = hex::encode(hasher.finalize());
                    (predicate.to_owned(), PredicateLines { count, digest })
                })
                .collect(),
        );
        Fingerprint {
            digest,
            quads,
            manifest,
        }
    }
}

/// The predicate IRI of a canonical N-Quads line: its second term, since a subject (an
/// IRI or a blank node) holds no space.
pub fn predicate_of(line: &str) -> &str {
    line.split(' ')
        .nth(1)
        .map(|term| term.trim_start_matches('<').trim_end_matches('>'))
        .unwrap_or_default()
}

fn iri(value: &str) -> SimpleTerm<'_> {
    SimpleTerm::Iri(IriRef::new_unchecked(MownStr::from(value)))
}

fn subject(node: NamedOrBlankNodeRef<'_>) -> SimpleTerm<'_> {
    match node {
        NamedOrBlankNodeRef::NamedNode(node) => iri(node.as_str()),
        NamedOrBlankNodeRef::BlankNode(node) => {
            SimpleTerm::BlankNode(BnodeId::new_unchecked(MownStr::from(node.as_str())))
        }
    }
}

fn graph(name: GraphNameRef<'_>) -> Option<SimpleTerm<'_>> {
    match name {
        GraphNameRef::NamedNode(node) => Some(iri(node.as_str())),
        GraphNameRef::BlankNode(node) => Some(subject(node.into())),
        GraphNameRef::DefaultGraph => None,
    }
}

fn term(term: TermRef<'_>) -> SimpleTerm<'_> {
    match term {
        TermRef::NamedNode(node) => iri(node.as_str()),
        TermRef::BlankNode(node) => subject(node.into()),
        TermRef::Literal(literal) => match literal.language() {
            Some(language) => SimpleTerm::LiteralLanguage(
                MownStr::from(literal.value()),
                LanguageTag::new_unchecked(MownStr::from(language)),
            ),
            None => SimpleTerm::LiteralDatatype(
                MownStr::from(literal.value()),
                IriRef::new_unchecked(MownStr::from(literal.datatype().as_str())),
            ),
        },
        TermRef::Triple(triple) => SimpleTerm::Triple(Box::new([
            subject(triple.subject.as_ref()),
            iri(triple.predicate.as_str()),
            self::term(triple.object.as_ref()),
        ])),
    }
}

impl Manifest {
    /// The predicates whose lines differ between `self` (recorded) and `now`, in IRI
    /// order.
    pub fn changes(&self, now: &Manifest) -> Vec<PredicateChange> {
        let predicates: std::collections::BTreeSet<&String> =
            self.0.keys().chain(now.0.keys()).collect();
        predicates
            .into_iter()
            .filter(|predicate| self.0.get(*predicate) != now.0.get(*predicate))
            .map(|predicate| PredicateChange {
                predicate: predicate.clone(),
                before: self.0.get(predicate).map_or(0, |lines| lines.count),
                after: now.0.get(predicate).map_or(0, |lines| lines.count),
            })
            .collect()
    }
}

/// The manifest as kept in the store: one line per predicate, `COUNT DIGEST IRI`.
impl fmt::Display for Manifest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (predicate, lines) in &self.0 {
            writeln!(f, "{} {} {predicate}", lines.count, lines.digest)?;
        }
        Ok(())
    }
}

impl std::str::FromStr for Manifest {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let mut manifest = BTreeMap::new();
        for (number, line) in text.lines().enumerate() {
            let mut fields = line.splitn(3, ' ');
            let parsed = match (fields.next(), fields.next(), fields.next()) {
                (Some(count), Some(digest), Some(predicate)) => count
                    .parse()
                    .ok()
                    .filter(|_| digest.len() == 64)
                    .map(|count| {
                        let digest = digest.to_owned();
                        (predicate.to_owned(), PredicateLines { count, digest })
                    }),
                _ => None,
            };
            let (predicate, lines) = parsed.ok_or_else(|| {
                format!(
                    "line {}: expected `COUNT SHA256 PREDICATE`, found {line:?}",
                    number + 1
                )
            })?;
            manifest.insert(predicate, lines);
        }
        Ok(Manifest(manifest))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use oxrdf::{BlankNode, Literal, NamedNode, Quad};

    fn quads() -> Vec<Quad> {
        let g = NamedNode::new_unchecked("https://example.org/g");
        let p = NamedNode::new_unchecked("https://example.org/p");
        let q = NamedNode::new_unchecked("https://example.org/q");
        vec![
            Quad::new(
                g.clone(),
                p.clone(),
                Literal::new_simple_literal("a\tb"),
                g.clone(),
            ),
            Quad::new(
                g.clone(),
                q.clone(),
                BlankNode::new_unchecked("x"),
                g.clone(),
            ),
            Quad::new(
                BlankNode::new_unchecked("x"),
                p,
                Literal::new_language_tagged_literal_unchecked("y", "en"),
                g,
            ),
        ]
    }

    #[test]
    fn blank_node_labels_do_not_matter() {
        let first = fingerprint(quads().iter().map(Quad::as_ref)).expect("canonical");
        let relabelled: Vec<Quad> = quads()
            .into_iter()
            .map(|mut quad| {
                if quad.subject.is_blank_node() {
                    quad.subject = BlankNode::new_unchecked("other").into();
                }
                if quad.object.is_blank_node() {
                    quad.object = BlankNode::new_unchecked("other").into();
                }
                quad
            })
            .collect();
        let second = fingerprint(relabelled.iter().map(Quad::as_ref)).expect("canonical");
        assert_eq!(first, second);
        assert_eq!(first.quads, 3);
        assert_eq!(first.manifest.0.len(), 2);
        assert_eq!(first.manifest.0["https://example.org/p"].count, 2);
    }

    /// Quads without blank nodes: every kind of literal, every character escaped, text
    /// in other scripts, and the same quad twice.
    fn plain_quads() -> Vec<Quad> {
        let g = NamedNode::new_unchecked("https://example.org/g");
        let s = NamedNode::new_unchecked("https://example.org/s");
        let p = NamedNode::new_unchecked("https://example.org/p");
        let every_ascii: String = (0u8..=0x7f).map(char::from).collect();
        let objects: Vec<oxrdf::Term> = vec![
            Literal::new_simple_literal(every_ascii).into(),
            Literal::new_simple_literal("café 東京 \u{1F600} \u{85}\u{2028}").into(),
            Literal::new_simple_literal("").into(),
            Literal::new_simple_literal("a \"quoted\" b").into(),
            Literal::new_language_tagged_literal_unchecked("Grüße\n", "de").into(),
            Literal::new_language_tagged_literal_unchecked("x", "en-us").into(),
            Literal::new_typed_literal("42", oxrdf::vocab::xsd::INTEGER).into(),
            Literal::new_typed_literal("2026-11-26T00:00:00Z", oxrdf::vocab::xsd::DATE_TIME).into(),
            Literal::new_typed_literal("x", oxrdf::vocab::xsd::STRING).into(),
            NamedNode::new_unchecked("https://example.org/o").into(),
            NamedNode::new_unchecked("https://example.org/o/1").into(),
        ];
        let mut quads: Vec<Quad> = objects
            .into_iter()
            .map(|object| Quad::new(s.clone(), p.clone(), object, g.clone()))
            .collect();
        quads.push(quads[0].clone());
        quads.push(Quad::new(g.clone(), p, s, oxrdf::GraphName::DefaultGraph));
        quads
    }

    #[test]
    fn lines_written_once_are_sophias_document() {
        let quads = plain_quads();
        let refs: Vec<QuadRef<'_>> = quads.iter().map(Quad::as_ref).collect();
        let ours = SortedLines::of(&refs).document();
        let sophias = relabelled_lines(refs.clone()).expect("canonical");
        assert_eq!(ours, sophias);
        assert_eq!(ours.1, quads.len() - 1, "the quad given twice counts once");
        assert!(ours.0.contains("\\u0000") && ours.0.contains("\\b") && ours.0.contains("\\u007F"));
    }

    #[test]
    fn a_fingerprint_hashes_the_lines_as_the_document_they_make() {
        let quads = plain_quads();
        let refs: Vec<QuadRef<'_>> = quads.iter().map(Quad::as_ref).collect();
        let (document, count) = relabelled_lines(refs.clone()).expect("canonical");
        let print = fingerprint(refs).expect("fingerprint");
        assert_eq!(
            print.digest,
            hex::encode(Sha256::digest(document.as_bytes()))
        );
        assert_eq!(print, Fingerprint::of_canonical(&document, count));
        let p = "https://example.org/p";
        assert_eq!(print.manifest.0[p].count, quads.len() - 1);
        let mut lines = Sha256::new();
        document
            .lines()
            .for_each(|line| lines.update(format!("{line}\n")));
        assert_eq!(print.manifest.0[p].digest, hex::encode(lines.finalize()));
    }

    #[test]
    fn sessions_fingerprint_as_sophia_takes_them() {
        let scheme = crate::rdf::IriScheme::default();
        let options = crate::generate::GenerateOptions {
            sessions: 20,
            ..Default::default()
        };
        for document in crate::generate::generate(options) {
            let history = crate::check::check_document(&document, Default::default())
                .history
                .expect("a generated session is valid");
            let session = crate::rdf::map_history(&history, &scheme);
            let refs: Vec<QuadRef<'_>> = session.quads.iter().map(Quad::as_ref).collect();
            assert!(!refs.iter().any(|quad| has_blank_node(*quad)));
            let sophias = relabelled_lines(refs.clone()).expect("canonical");
            assert_eq!(SortedLines::of(&refs).document(), sophias);
            // The lines hashed one by one: the digest and manifest of the document whole.
            assert_eq!(
                fingerprint(refs).expect("fingerprint"),
                Fingerprint::of_canonical(&sophias.0, sophias.1)
            );
        }
    }

    #[test]
    fn manifest_round_trips_and_names_changes() {
        let before = fingerprint(quads().iter().map(Quad::as_ref)).expect("canonical");
        let text = before.manifest.to_string();
        assert_eq!(text.parse::<Manifest>(), Ok(before.manifest.clone()));
        let mut changed = quads();
        changed.pop();
        let after = fingerprint(changed.iter().map(Quad::as_ref)).expect("canonical");
        assert_ne!(before.digest, after.digest);
        let changes = before.manifest.changes(&after.manifest);
        assert_eq!(changes.len(), 1, "{changes:?}");
        assert_eq!((changes[0].before, changes[0].after), (2, 1));
        assert!("1 abc https://example.org/p".parse::<Manifest>().is_err());
    }
}
