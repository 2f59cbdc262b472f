//! A fingerprint carried by an exported PGM-IHI document. The standard leaves one place
//! for it: the free text of the Data Exchange Metadata (`DataXMData.DescrMetadata`, a
//! string of at most 2,048 characters in the PTF DEM V1.0 schema); every other member
//! of the DEM has a meaning of its own (`DataID`, `Source`) or a schema that is not
//! published (`Annotations`, `Security`). The note is written only where that text is
//! free, and taken out again before an export is compared with the store.

use crate::model::InteractionHistory;
use crate::rdf::{FINGERPRINT_ALGORITHM, Fingerprint};

/// How the note begins; the digest follows.
pub const FINGERPRINT_NOTE: &str =
    "ihigraph fingerprint of the session graph this document was exported from: ";

/// Puts the fingerprint into the document's `DataXMData.DescrMetadata`, if that is free;
/// says whether it did.
///
/// ```
/// use ihigraph::integrity::{note_fingerprint, take_fingerprint_note};
/// use ihigraph::rdf::fingerprint;
/// let document = ihigraph::generate::generate(Default::default()).next().unwrap();
/// let checked = ihigraph::check_document(&document, Default::default());
/// let mut history = checked.history.unwrap();
/// history.data_exchange_metadata.descriptive_metadata = None;
/// let print = fingerprint([])?;
/// assert!(note_fingerprint(&mut history, &print));
/// assert!(!note_fingerprint(&mut history, &print), "the text is taken now");
/// assert_eq!(take_fingerprint_note(&mut history), Some(print.digest));
/// assert_eq!(history.data_exchange_metadata.descriptive_metadata, None);
/// # Ok::<_, ihigraph::rdf::FingerprintError>(())
/// ```
pub fn note_fingerprint(history: &mut InteractionHistory, print: &Fingerprint) -> bool {
    let text = &mut history.data_exchange_metadata.descriptive_metadata;
    if text.is_some() {
        return false;
    }
    *text = Some(format!(
        "{FINGERPRINT_NOTE}{FINGERPRINT_ALGORITHM} {} ({} quads)",
        print.digest, print.quads
    ));
    true
}

/// Takes a fingerprint note out of the document, giving its digest.
pub fn take_fingerprint_note(history: &mut InteractionHistory) -> Option<String> {
    let text = &mut history.data_exchange_metadata.descriptive_metadata;
    let digest = text
        .as_deref()?
        .strip_prefix(FINGERPRINT_NOTE)?
        .strip_prefix(FINGERPRINT_ALGORITHM)?
        .split_whitespace()
        .next()?
        .to_owned();
    *text = None;
    Some(digest)
}
