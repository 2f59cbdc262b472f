//! The store's own settings, kept in its default graph where no query over the session
//! graphs sees them: the IRI scheme, fixed when the store is created, and the digest of
//! the ontologies it holds, each in a named graph named by its IRI, so that queries can
//! read the class hierarchy. A store opened by another version of ihigraph gets that
//! version's ontologies. And the retention period, set and cleared by the user
//! ([`RetentionPeriod`]).

use super::backend::Backend;
use super::{SchemeSetting, StoreError};
use crate::rdf::vocab::ihi;
use crate::rdf::{
    DEFAULT_BASE, DEFAULT_SESSION_TEMPLATE, IriScheme, ONTOLOGIES, ontology_digest, ontology_graphs,
};
use oxigraph::model::vocab::xsd;
use oxigraph::model::{GraphName, GraphNameRef, Literal, Quad, Term};
use oxsdatatypes::{DayTimeDuration, Decimal};
use std::fmt;
use std::str::FromStr;

/// The IRI scheme asked for when opening a store: what is not given is the store's
/// recorded setting, or the default for a new store.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SchemeRequest {
    /// The IRI base.
    pub base: Option<String>,
    /// The work-session IRI template.
    pub session_template: Option<String>,
}

/// The settings a store holds: what [`settle`] read.
#[derive(Debug, Default)]
struct Recorded {
    base: Option<String>,
    session_template: Option<String>,
    ontology_digest: Option<String>,
    /// Whatever else the default graph holds (written by a SPARQL update): kept.
    others: Vec<Quad>,
}

/// Reads the store's settings, records them if the store is new, refreshes the
/// ontologies if they are not this version's, and gives the scheme to use. A store last
/// opened by another version gets `migrate` first, before the ontologies and their digest
/// that say this version opened it: a crash during `migrate` leaves it to the next open.
pub(super) fn settle(
    backend: &dyn Backend,
    request: &SchemeRequest,
    migrate: impl FnOnce(&IriScheme) -> Result<(), StoreError>,
) -> Result<IriScheme, StoreError> {
    let recorded = read(backend)?;
    let fresh = recorded.base.is_none() || recorded.session_template.is_none();
    let base = pick(
        SchemeSetting::Base,
        recorded.base,
        &request.base,
        DEFAULT_BASE,
    )?;
    let template = pick(
        SchemeSetting::SessionTemplate,
        recorded.session_template,
        &request.session_template,
        DEFAULT_SESSION_TEMPLATE,
    )?;
    let scheme = IriScheme::new(&base, &template)?;
    let digest = ontology_digest();
    if fresh || recorded.ontology_digest.as_deref() != Some(digest.as_str()) {
        if !fresh {
            migrate(&scheme)?;
        }
        let settings = [
            (ihi::IRI_BASE, base.as_str()),
            (ihi::SESSION_IRI_TEMPLATE, template.as_str()),
            (ihi::ONTOLOGY_DIGEST, digest.as_str()),
        ]
        .into_iter()
        .map(|(property, value)| {
            Quad::new(
                ihi::STORE_SETTINGS,
                property,
                Literal::new_simple_literal(value),
                GraphName::DefaultGraph,
            )
        });
        let mut graphs = vec![GraphName::DefaultGraph];
        let mut quads: Vec<Quad> = recorded.others;
        quads.extend(settings);
        for (graph, ontology) in ontology_graphs() {
            graphs.push(graph.into());
            quads.extend(ontology);
        }
        backend.replace_graphs(&graphs, quads)?;
    }
    Ok(scheme)
}

fn read(backend: &dyn Backend) -> Result<Recorded, StoreError> {
    let mut recorded = Recorded::default();
    for quad in backend.quads(Some(GraphNameRef::DefaultGraph))? {
        let quad = quad?;
        let slot = match quad.predicate.as_ref() {
            _ if quad.subject != ihi::STORE_SETTINGS.into() => None,
            p if p == ihi::IRI_BASE => Some(&mut recorded.base),
            p if p == ihi::SESSION_IRI_TEMPLATE => Some(&mut recorded.session_template),
            p if p == ihi::ONTOLOGY_DIGEST => Some(&mut recorded.ontology_digest),
            _ => None,
        };
        match (slot, &quad.object) {
            (Some(slot), Term::Literal(value)) => {
                slot.get_or_insert_with(|| value.value().to_owned());
            }
            _ => recorded.others.push(quad),
        }
    }
    Ok(recorded)
}

fn pick(
    setting: SchemeSetting,
    stored: Option<String>,
    requested: &Option<String>,
    default: &str,
) -> Result<String, StoreError> {
    match (stored, requested) {
        (Some(stored), Some(requested)) if stored != *requested => {
            Err(StoreError::SchemeConflict {
                setting,
                stored,
                requested: requested.clone(),
            })
        }
        (Some(stored), _) => Ok(stored),
        (None, Some(requested)) => Ok(requested.clone()),
        (None, None) => Ok(default.to_owned()),
    }
}

/// Whether a graph holds the store's own data (its settings or an ontology) rather than
/// a session.
pub(super) fn is_bookkeeping(graph: &GraphName) -> bool {
    match graph {
        GraphName::DefaultGraph => true,
        GraphName::NamedNode(node) => ONTOLOGIES.iter().any(|(iri, _)| node.as_str() == *iri),
        GraphName::BlankNode(_) => false,
    }
}

/// How long a store keeps a session after its last turn, in whole seconds (more than
/// none): kept in the store's settings as an `xsd:dayTimeDuration` (`P90D`). Written on
/// the command line as a whole number and a unit (`90d`, `12h`, `2w`, `30m`, `45s`) or
/// as an ISO 8601 duration of days and time (`P90D`, `PT12H`, `P1DT12H`); years and
/// months are refused, for they have no fixed length.
///
/// ```
/// use ihigraph::store::RetentionPeriod;
/// let period: RetentionPeriod = "2w".parse()?;
/// assert_eq!(period.to_string(), "P14D");
/// assert_eq!(period, "P14D".parse()?);
/// assert!("3 months".parse::<RetentionPeriod>().is_err());
/// # Ok::<_, ihigraph::store::PeriodError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RetentionPeriod {
    seconds: u64,
}

/// A period written in a form [`RetentionPeriod`] does not read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "`{text}` is not a period: {reason} (expected a whole number and a unit, s, m, h, d or w, as in 90d, 12h or 2w, or an ISO 8601 duration of days and time, as in P90D or PT12H)"
)]
pub struct PeriodError {
    /// What was given.
    pub text: String,
    /// What is wrong with it.
    pub reason: &'static str,
}

impl RetentionPeriod {
    /// A period of `seconds`; none for zero.
    pub fn from_seconds(seconds: u64) -> Option<Self> {
        (seconds > 0).then_some(Self { seconds })
    }

    /// The period in seconds.
    pub fn as_seconds(self) -> u64 {
        self.seconds
    }

    /// The period as a standard duration.
    pub fn as_duration(self) -> std::time::Duration {
        std::time::Duration::from_secs(self.seconds)
    }

    /// The period as an `xsd:dayTimeDuration`.
    pub fn to_day_time_duration(self) -> DayTimeDuration {
        DayTimeDuration::new(self.seconds)
    }

    /// The literal the store's settings keep.
    fn to_literal(self) -> Literal {
        Literal::new_typed_literal(self.to_string(), xsd::DAY_TIME_DURATION)
    }
}

impl fmt::Display for RetentionPeriod {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.to_day_time_duration().fmt(f)
    }
}

impl FromStr for RetentionPeriod {
    type Err = PeriodError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let error = |reason| PeriodError {
            text: text.to_owned(),
            reason,
        };
        let trimmed = text.trim();
        let seconds = if trimmed.starts_with(['P', 'p']) {
            iso_seconds(&trimmed.to_ascii_uppercase()).map_err(error)?
        } else {
            unit_seconds(trimmed).map_err(error)?
        };
        Self::from_seconds(seconds).ok_or_else(|| error("a period must be longer than none"))
    }
}

/// The seconds of `90d`, `12h`, `2w`, `30m` or `45s`.
fn unit_seconds(text: &str) -> Result<u64, &'static str> {
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .ok_or("it has no unit")?;
    let (number, unit) = text.split_at(split);
    if number.is_empty() {
        return Err("it does not start with a whole number");
    }
    let per_unit: u64 = match unit {
        "s" => 1,
        "m" => 60,
        "h" => 3_600,
        "d" => 86_400,
        "w" => 7 * 86_400,
        _ => return Err("its unit is not one of s, m, h, d or w"),
    };
    number
        .parse::<u64>()
        .ok()
        .and_then(|number| number.checked_mul(per_unit))
        .filter(|seconds| i64::try_from(*seconds).is_ok())
        .ok_or("it is too long")
}

/// The whole seconds of an ISO 8601 duration of days and time (`P90D`, `PT12H`).
fn iso_seconds(text: &str) -> Result<u64, &'static str> {
    if text.contains('Y')
        || (text.contains('M') && !text.contains('T'))
        || text
            .split_once('T')
            .is_some_and(|(date, _)| date.contains('M'))
    {
        return Err("years and months have no fixed length: give days (P90D)");
    }
    let duration = DayTimeDuration::from_str(text).map_err(|_| "it is not an ISO 8601 duration")?;
    let seconds = duration.as_seconds();
    if seconds < Decimal::from(0) {
        return Err("a period must not be negative");
    }
    let whole = seconds.checked_floor().ok_or("it is too long")?;
    if whole != seconds {
        return Err("a period is a whole number of seconds");
    }
    whole
        .to_string()
        .parse::<u64>()
        .ok()
        .filter(|seconds| i64::try_from(*seconds).is_ok())
        .ok_or("it is too long")
}

/// The store's retention period, if it has one.
pub(super) fn retention(backend: &dyn Backend) -> Result<Option<RetentionPeriod>, StoreError> {
    for quad in backend.quads(Some(GraphNameRef::DefaultGraph))? {
        let quad = quad?;
        if quad.subject != ihi::STORE_SETTINGS.into() || quad.predicate != ihi::RETENTION_PERIOD {
            continue;
        }
        let Term::Literal(value) = &quad.object else {
            return Err(StoreError::BadSetting {
                setting: ihi::RETENTION_PERIOD.as_str().to_owned(),
                value: quad.object.to_string(),
                reason: "a literal was expected".to_owned(),
            });
        };
        return value
            .value()
            .parse()
            .map(Some)
            .map_err(|error: PeriodError| StoreError::BadSetting {
                setting: ihi::RETENTION_PERIOD.as_str().to_owned(),
                value: value.to_string(),
                reason: error.reason.to_owned(),
            });
    }
    Ok(None)
}

/// Records the store's retention period, or removes it: the default graph written again
/// whole, with everything else it holds.
pub(super) fn set_retention(
    backend: &dyn Backend,
    period: Option<RetentionPeriod>,
) -> Result<(), StoreError> {
    let mut quads = Vec::new();
    for quad in backend.quads(Some(GraphNameRef::DefaultGraph))? {
        let quad = quad?;
        if quad.subject != ihi::STORE_SETTINGS.into() || quad.predicate != ihi::RETENTION_PERIOD {
            quads.push(quad);
        }
    }
    quads.extend(period.map(|period| {
        Quad::new(
            ihi::STORE_SETTINGS,
            ihi::RETENTION_PERIOD,
            period.to_literal(),
            GraphName::DefaultGraph,
        )
    }));
    backend.replace_graphs(&[GraphName::DefaultGraph], quads)
}
