//! Tenants and access tokens: the register of a store that serves many teams, kept in its
//! settings (the default graph, beside the IRI scheme).
//!
//! A tenant is a store of its own in `STORE_DIR/tenants/NAME/`: its own Oxigraph store,
//! full-text index, inferred store, fingerprints and memory graph, its nodes named under
//! `BASE/tenant/NAME/`. Kept apart on disk rather than by graph names in one store, a
//! tenant's query cannot reach another's data whatever it names (`FROM`, `GRAPH`, a
//! crafted update): there is nothing of the other's in the store it runs on.
//!
//! A token is kept as the SHA-256 of its secret only, with its id (the public part of the
//! token, by which it is listed and revoked), its role and its tenant. Tokens carry 256
//! bits drawn from the system's random source, so a digest without salt or stretching is
//! as strong as the secret: there is no password to guess.

use super::{HistoryStore, StoreError};
use crate::rdf::vocab::ihi;
use crate::rdf::{IriScheme, encode_segment};
use oxrdf::vocab::rdf;
use oxrdf::{GraphName, Literal, NamedNode, NamedOrBlankNode, Quad, Term};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;

/// The directory of a store's tenants, inside the store's directory.
pub const TENANTS_DIRECTORY: &str = "tenants";

/// What every token's text begins with, so that a leaked one is recognised by scanners.
const TOKEN_PREFIX: &str = "ihg_";

/// A tenant's name: 1 to 63 lower-case ASCII letters, digits, `-` and `_`, beginning with
/// a letter or a digit; it names the tenant's directory and its IRIs as it is.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TenantName(String);

impl TenantName {
    /// The name.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for TenantName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl FromStr for TenantName {
    type Err = StoreError;

    fn from_str(given: &str) -> Result<Self, StoreError> {
        let refuse = |reason: &str| StoreError::TenantName {
            given: given.chars().take(80).collect(),
            reason: reason.to_owned(),
        };
        if given.is_empty() || given.len() > 63 {
            return Err(refuse("it must be 1 to 63 characters long"));
        }
        if !given.starts_with(|c: char| c.is_ascii_lowercase() || c.is_ascii_digit()) {
            return Err(refuse("it must begin with a lower-case letter or a digit"));
        }
        if !given
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
        {
            return Err(refuse(
                "it may hold only lower-case letters a-z, digits, '-' and '_'",
            ));
        }
        Ok(Self(given.to_owned()))
    }
}

/// What a token may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum AccessRole {
    /// Queries, search, context, reports, exports: nothing that writes.
    Read,
    /// Reads, and writes of its tenant's sessions and memory.
    Write,
    /// Without a tenant: everything, in every tenant and in the store's own sessions.
    /// With one: everything in its tenant, and its tenant's tokens.
    Admin,
}

impl AccessRole {
    /// The role's name, as `--role` and the register spell it.
    pub fn name(self) -> &'static str {
        match self {
            Self::Read => "read",
            Self::Write => "write",
            Self::Admin => "admin",
        }
    }
}

impl FromStr for AccessRole {
    type Err = StoreError;

    fn from_str(given: &str) -> Result<Self, StoreError> {
        match given {
            "read" => Ok(Self::Read),
            "write" => Ok(Self::Write),
            "admin" => Ok(Self::Admin),
            _ => Err(StoreError::AccessRole {
                given: given.chars().take(80).collect(),
            }),
        }
    }
}

/// What a tenant may take of the server; `None` is the server's own limit.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TenantLimits {
    /// Requests per minute, all its tokens together.
    pub requests_per_minute: Option<u64>,
    /// Rows (solutions or triples) in one answer.
    pub result_rows: Option<u64>,
    /// How long one query may run.
    pub query_time: Option<Duration>,
    /// The largest request body, in bytes.
    pub body_bytes: Option<u64>,
    /// The quads its store may hold.
    pub stored_quads: Option<u64>,
}

impl TenantLimits {
    /// These limits with every one `other` sets taken from it.
    pub fn updated(&self, other: &Self) -> Self {
        Self {
            requests_per_minute: other.requests_per_minute.or(self.requests_per_minute),
            result_rows: other.result_rows.or(self.result_rows),
            query_time: other.query_time.or(self.query_time),
            body_bytes: other.body_bytes.or(self.body_bytes),
            stored_quads: other.stored_quads.or(self.stored_quads),
        }
    }
}

/// A tenant as the register holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tenant {
    /// Its name.
    pub name: TenantName,
    /// When it was added (`xsd:dateTime`).
    pub created: String,
    /// What it may take of the server.
    pub limits: TenantLimits,
}

/// A token as the register holds it: everything but its secret.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenRecord {
    /// The public part of the token: what `token revoke` takes.
    pub id: String,
    /// What it may do.
    pub role: AccessRole,
    /// The tenant it is confined to: `None` for the store's administrator, or for a read
    /// or write token of the store's own sessions.
    pub tenant: Option<TenantName>,
    /// What it is for, as its issuer wrote it.
    pub note: Option<String>,
    /// When it was issued (`xsd:dateTime`).
    pub created: String,
}

/// A token just issued: its secret is shown once and kept nowhere.
#[derive(Debug, Clone)]
pub struct IssuedToken {
    /// What the register keeps.
    pub record: TokenRecord,
    /// The whole token, `ihg_ID_SECRET`: what a client sends as `Authorization: Bearer`.
    pub secret: String,
}

/// The tokens of a store, for checking the bearer of a request: a snapshot of the
/// register, taken again after every change to it.
#[derive(Debug, Clone, Default)]
pub struct AccessList {
    tokens: BTreeMap<String, (TokenRecord, [u8; 32])>,
}

impl AccessList {
    /// The record of the token a client sent, when it is one of the store's: its id
    /// finds the record, and the digest of the whole token is compared in constant time.
    pub fn check(&self, sent: &str) -> Option<&TokenRecord> {
        let (id, _) = split_token(sent)?;
        let (record, digest) = self.tokens.get(id)?;
        let sent_digest: [u8; 32] = Sha256::digest(sent.as_bytes()).into();
        // Constant time over the digest: the comparison says nothing of how much matched.
        let differences = sent_digest
            .iter()
            .zip(digest)
            .fold(0u8, |acc, (a, b)| acc | (a ^ b));
        (differences == 0).then_some(record)
    }

    /// Whether the store has issued any token.
    pub fn is_empty(&self) -> bool {
        self.tokens.is_empty()
    }
}

/// The id and secret parts of a token's text, when it has the shape of one.
fn split_token(text: &str) -> Option<(&str, &str)> {
    let (id, secret) = text.strip_prefix(TOKEN_PREFIX)?.split_once('_')?;
    (!id.is_empty() && !secret.is_empty()).then_some((id, secret))
}

/// The register as the default graph holds it.
#[derive(Debug, Default)]
struct Register {
    tenants: BTreeMap<TenantName, (NamedNode, Tenant, Vec<Quad>)>,
    tokens: BTreeMap<String, (TokenRecord, String, Vec<Quad>)>,
}

impl HistoryStore {
    /// The tenants of this store, by name.
    pub fn tenants(&self) -> Result<Vec<Tenant>, StoreError> {
        Ok(self
            .register()?
            .tenants
            .into_values()
            .map(|(_, tenant, _)| tenant)
            .collect())
    }

    /// The tokens of this store (without their secrets), by id.
    pub fn tokens(&self) -> Result<Vec<TokenRecord>, StoreError> {
        Ok(self
            .register()?
            .tokens
            .into_values()
            .map(|(record, _, _)| record)
            .collect())
    }

    /// The tokens of this store, for checking requests.
    pub fn access_list(&self) -> Result<AccessList, StoreError> {
        let mut list = AccessList::default();
        for (id, (record, digest, _)) in self.register()?.tokens {
            let mut bytes = [0u8; 32];
            if hex::decode_to_slice(&digest, &mut bytes).is_ok() {
                list.tokens.insert(id, (record, bytes));
            }
        }
        Ok(list)
    }

    /// Adds a tenant to the register (its store is made when it is first opened). Only
    /// for a store on disk, whose directory holds its tenants' stores.
    pub fn add_tenant(
        &self,
        name: &TenantName,
        limits: &TenantLimits,
    ) -> Result<Tenant, StoreError> {
        self.tenants_directory()?;
        if self.register()?.tenants.contains_key(name) {
            return Err(StoreError::TenantExists {
                name: name.to_string(),
            });
        }
        let tenant = Tenant {
            name: name.clone(),
            created: now(),
            limits: limits.clone(),
        };
        let node = self.tenant_node(name);
        self.backend.change(&[], &tenant_quads(&node, &tenant))?;
        Ok(tenant)
    }

    /// Changes the limits a tenant has set (the others stay); gives the tenant as it now is.
    pub fn set_tenant_limits(
        &self,
        name: &TenantName,
        limits: &TenantLimits,
    ) -> Result<Tenant, StoreError> {
        let register = self.register()?;
        let (node, tenant, old) = register.tenants.get(name).ok_or_else(|| unknown(name))?;
        let tenant = Tenant {
            limits: tenant.limits.updated(limits),
            ..tenant.clone()
        };
        self.backend.change(old, &tenant_quads(node, &tenant))?;
        Ok(tenant)
    }

    /// Removes a tenant: its register entry, its tokens, and its store's directory with
    /// everything in it. The tenant's store must not be open. Gives the ids of the tokens
    /// revoked with it.
    pub fn remove_tenant(&self, name: &TenantName) -> Result<Vec<String>, StoreError> {
        let register = self.register()?;
        let (_, _, quads) = register.tenants.get(name).ok_or_else(|| unknown(name))?;
        let mut removed = quads.clone();
        let mut revoked = Vec::new();
        for (id, (record, _, token_quads)) in &register.tokens {
            if record.tenant.as_ref() == Some(name) {
                revoked.push(id.clone());
                removed.extend(token_quads.iter().cloned());
            }
        }
        let directory = self.tenants_directory()?.join(name.as_str());
        if directory.exists() {
            std::fs::remove_dir_all(&directory).map_err(|source| StoreError::TenantStore {
                path: directory.clone(),
                source,
            })?;
        }
        self.backend.change(&removed, &[])?;
        Ok(revoked)
    }

    /// Issues a token: for a tenant, or without one for the store's own sessions (an
    /// admin token without a tenant is the store's administrator, who sees every tenant;
    /// with one, its tenant's, who issues and revokes that tenant's tokens). The secret
    /// is in the answer only.
    pub fn issue_token(
        &self,
        tenant: Option<&TenantName>,
        role: AccessRole,
        note: Option<&str>,
    ) -> Result<IssuedToken, StoreError> {
        if let Some(name) = tenant
            && !self.register()?.tenants.contains_key(name)
        {
            return Err(unknown(name));
        }
        let id = hex::encode(random::<6>()?);
        let secret = format!(
            "{TOKEN_PREFIX}{id}_{}",
            base64::Engine::encode(
                &base64::engine::general_purpose::URL_SAFE_NO_PAD,
                random::<32>()?
            )
        );
        let record = TokenRecord {
            id: id.clone(),
            role,
            tenant: tenant.cloned(),
            note: note.map(str::to_owned),
            created: now(),
        };
        let digest = hex::encode(Sha256::digest(secret.as_bytes()));
        self.backend
            .change(&[], &self.token_quads(&record, &digest))?;
        Ok(IssuedToken { record, secret })
    }

    /// Revokes a token by its id; gives what the register held of it.
    pub fn revoke_token(&self, id: &str) -> Result<TokenRecord, StoreError> {
        let register = self.register()?;
        let (record, _, quads) =
            register
                .tokens
                .get(id)
                .ok_or_else(|| StoreError::UnknownToken {
                    id: id.chars().take(80).collect(),
                })?;
        self.backend.change(quads, &[])?;
        Ok(record.clone())
    }

    /// The IRI scheme of a tenant's store: its nodes under `BASE/tenant/NAME/`, its work
    /// sessions by the store's template.
    pub fn tenant_scheme(&self, name: &TenantName) -> Result<IriScheme, StoreError> {
        Ok(IriScheme::new(
            &format!("{}tenant/{}/", self.scheme.base(), name),
            self.scheme.session_template(),
        )?)
    }

    /// Opens a tenant's store (making it the first time), which must be in the register.
    pub fn open_tenant(&self, name: &TenantName) -> Result<Self, StoreError> {
        let (directory, request) = self.tenant_location(name)?;
        Self::open(&directory, &request)
    }

    /// Where a tenant's store lives (made here the first time) and the scheme to open it
    /// with: for opening it once this store is closed, or for turning its reasoning on.
    pub fn tenant_location(
        &self,
        name: &TenantName,
    ) -> Result<(PathBuf, super::SchemeRequest), StoreError> {
        let directory = self.tenants_directory()?.join(name.as_str());
        if !self.register()?.tenants.contains_key(name) {
            return Err(unknown(name));
        }
        std::fs::create_dir_all(&directory).map_err(|source| StoreError::TenantStore {
            path: directory.clone(),
            source,
        })?;
        let scheme = self.tenant_scheme(name)?;
        let request = super::SchemeRequest {
            base: Some(scheme.base().to_owned()),
            session_template: Some(scheme.session_template().to_owned()),
        };
        Ok((directory, request))
    }

    /// The directory of this store's tenants' stores: only a store on disk has one.
    fn tenants_directory(&self) -> Result<PathBuf, StoreError> {
        self.backend
            .directory()
            .map(|directory| directory.join(TENANTS_DIRECTORY))
            .ok_or_else(|| StoreError::NoTenants {
                location: self.location(),
            })
    }

    fn tenant_node(&self, name: &TenantName) -> NamedNode {
        NamedNode::new_unchecked(format!("{}tenant/{}", self.scheme.base(), name))
    }

    fn token_quads(&self, record: &TokenRecord, digest: &str) -> Vec<Quad> {
        let node = NamedNode::new_unchecked(format!(
            "{}token/{}",
            self.scheme.base(),
            encode_segment(&record.id)
        ));
        let mut quads = vec![
            setting(&node, rdf::TYPE, ihi::ACCESS_TOKEN),
            setting(
                &node,
                ihi::TOKEN_ID,
                Literal::new_simple_literal(&record.id),
            ),
            setting(
                &node,
                ihi::TOKEN_DIGEST,
                Literal::new_simple_literal(digest),
            ),
            setting(
                &node,
                ihi::ACCESS_ROLE,
                Literal::new_simple_literal(record.role.name()),
            ),
            setting(&node, ihi::CREATED_AT, date_time(&record.created)),
        ];
        if let Some(tenant) = &record.tenant {
            quads.push(setting(&node, ihi::FOR_TENANT, self.tenant_node(tenant)));
        }
        if let Some(note) = &record.note {
            quads.push(setting(
                &node,
                ihi::TOKEN_NOTE,
                Literal::new_simple_literal(note),
            ));
        }
        quads
    }

    /// Reads the register from the default graph.
    fn register(&self) -> Result<Register, StoreError> {
        let mut subjects: BTreeMap<NamedNode, Vec<Quad>> = BTreeMap::new();
        for quad in self.backend.quads(Some(GraphName::DefaultGraph.as_ref()))? {
            let quad = quad?;
            if let NamedOrBlankNode::NamedNode(subject) = &quad.subject {
                subjects.entry(subject.clone()).or_default().push(quad);
            }
        }
        let tenant_names: BTreeMap<NamedNode, TenantName> = subjects
            .iter()
            .filter_map(|(node, quads)| {
                let name = literal(quads, ihi::TENANT_NAME)?.parse().ok()?;
                is_a(quads, ihi::TENANT).then(|| (node.clone(), name))
            })
            .collect();
        let mut register = Register::default();
        for (node, quads) in subjects {
            if let Some(name) = tenant_names.get(&node) {
                let tenant = read_tenant(name, &quads);
                register.tenants.insert(name.clone(), (node, tenant, quads));
            } else if is_a(&quads, ihi::ACCESS_TOKEN)
                && let Some((record, digest)) = read_token(&quads, &tenant_names)
            {
                register
                    .tokens
                    .insert(record.id.clone(), (record, digest, quads));
            }
        }
        Ok(register)
    }
}

fn unknown(name: &TenantName) -> StoreError {
    StoreError::UnknownTenant {
        name: name.to_string(),
    }
}

fn read_tenant(name: &TenantName, quads: &[Quad]) -> Tenant {
    let number = |property| literal(quads, property).and_then(|value| value.parse::<u64>().ok());
    Tenant {
        name: name.clone(),
        created: literal(quads, ihi::CREATED_AT).unwrap_or_default(),
        limits: TenantLimits {
            requests_per_minute: number(ihi::MAX_REQUESTS_PER_MINUTE),
            result_rows: number(ihi::MAX_RESULT_ROWS),
            query_time: number(ihi::MAX_QUERY_MILLISECONDS).map(Duration::from_millis),
            body_bytes: number(ihi::MAX_BODY_BYTES),
            stored_quads: number(ihi::MAX_STORED_QUADS),
        },
    }
}

/// A token's record and digest; `None` for a record without an id, a digest or a known
/// role (written by hand), which then admits no one.
fn read_token(
    quads: &[Quad],
    tenants: &BTreeMap<NamedNode, TenantName>,
) -> Option<(TokenRecord, String)> {
    let tenant = match object(quads, ihi::FOR_TENANT) {
        None => None,
        // A token of a tenant no longer in the register admits no one.
        Some(Term::NamedNode(node)) => Some(tenants.get(node)?.clone()),
        Some(_) => return None,
    };
    let record = TokenRecord {
        id: literal(quads, ihi::TOKEN_ID)?,
        role: literal(quads, ihi::ACCESS_ROLE)?.parse().ok()?,
        tenant,
        note: literal(quads, ihi::TOKEN_NOTE),
        created: literal(quads, ihi::CREATED_AT).unwrap_or_default(),
    };
    Some((record, literal(quads, ihi::TOKEN_DIGEST)?))
}

fn tenant_quads(node: &NamedNode, tenant: &Tenant) -> Vec<Quad> {
    let mut quads = vec![
        setting(node, rdf::TYPE, ihi::TENANT),
        setting(
            node,
            ihi::TENANT_NAME,
            Literal::new_simple_literal(tenant.name.as_str()),
        ),
        setting(node, ihi::CREATED_AT, date_time(&tenant.created)),
    ];
    let limits = &tenant.limits;
    let query_millis = limits
        .query_time
        .map(|time| u64::try_from(time.as_millis()).unwrap_or(u64::MAX));
    for (property, value) in [
        (ihi::MAX_REQUESTS_PER_MINUTE, limits.requests_per_minute),
        (ihi::MAX_RESULT_ROWS, limits.result_rows),
        (ihi::MAX_QUERY_MILLISECONDS, query_millis),
        (ihi::MAX_BODY_BYTES, limits.body_bytes),
        (ihi::MAX_STORED_QUADS, limits.stored_quads),
    ] {
        if let Some(value) = value {
            quads.push(setting(
                node,
                property,
                Literal::new_typed_literal(
                    value.to_string(),
                    oxrdf::vocab::xsd::NON_NEGATIVE_INTEGER,
                ),
            ));
        }
    }
    quads
}

fn setting(
    subject: &NamedNode,
    property: oxrdf::NamedNodeRef<'_>,
    object: impl Into<Term>,
) -> Quad {
    Quad::new(
        subject.clone(),
        property,
        object.into(),
        GraphName::DefaultGraph,
    )
}

fn object<'a>(quads: &'a [Quad], property: oxrdf::NamedNodeRef<'_>) -> Option<&'a Term> {
    quads
        .iter()
        .find(|quad| quad.predicate == property)
        .map(|quad| &quad.object)
}

fn literal(quads: &[Quad], property: oxrdf::NamedNodeRef<'_>) -> Option<String> {
    match object(quads, property)? {
        Term::Literal(value) => Some(value.value().to_owned()),
        _ => None,
    }
}

fn is_a(quads: &[Quad], class: oxrdf::NamedNodeRef<'_>) -> bool {
    quads
        .iter()
        .any(|quad| quad.predicate == rdf::TYPE && quad.object == class.into())
}

fn date_time(value: &str) -> Literal {
    Literal::new_typed_literal(value, oxrdf::vocab::xsd::DATE_TIME)
}

/// Now, as an `xsd:dateTime` in UTC to the second.
fn now() -> String {
    let now = jiff::Timestamp::now();
    jiff::Timestamp::from_second(now.as_second())
        .unwrap_or(now)
        .to_string()
}

/// `N` bytes from the system's random source.
fn random<const N: usize>() -> Result<[u8; N], StoreError> {
    let mut bytes = [0u8; N];
    getrandom::fill(&mut bytes).map_err(|error| StoreError::Random {
        message: error.to_string(),
    })?;
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tenant_names_are_checked() {
        for good in ["acme", "a", "team-2_b", "0x"] {
            assert!(good.parse::<TenantName>().is_ok(), "{good}");
        }
        for bad in ["", "Acme", "-a", "a/b", "a b", "ä", &"a".repeat(64), ".."] {
            assert!(bad.parse::<TenantName>().is_err(), "{bad:?}");
        }
    }

    #[test]
    fn a_token_is_checked_by_its_id_and_whole_digest() {
        let directory = tempfile::tempdir().unwrap();
        let store = HistoryStore::open(directory.path(), &Default::default()).unwrap();
        let acme: TenantName = "acme".parse().unwrap();
        store.add_tenant(&acme, &TenantLimits::default()).unwrap();
        let issued = store
            .issue_token(Some(&acme), AccessRole::Write, Some("ci"))
            .unwrap();
        assert!(issued.secret.starts_with("ihg_"));
        let list = store.access_list().unwrap();
        assert_eq!(list.check(&issued.secret), Some(&issued.record));
        let mut forged = issued.secret.clone();
        forged.pop();
        forged.push(if issued.secret.ends_with('A') {
            'B'
        } else {
            'A'
        });
        assert_eq!(list.check(&forged), None);
        assert_eq!(list.check("ihg_nope_x"), None);
        assert_eq!(list.check("plain"), None);
        // The secret is nowhere in the store: only its digest.
        let secret_part = issued.secret.rsplit('_').next().unwrap();
        for quad in store.backend.quads(None).unwrap() {
            assert!(!quad.unwrap().to_string().contains(secret_part));
        }
        store.revoke_token(&issued.record.id).unwrap();
        assert_eq!(store.access_list().unwrap().check(&issued.secret), None);
    }

    #[test]
    fn removing_a_tenant_revokes_its_tokens_and_removes_its_store() {
        let directory = tempfile::tempdir().unwrap();
        let store = HistoryStore::open(directory.path(), &Default::default()).unwrap();
        let acme: TenantName = "acme".parse().unwrap();
        let limits = TenantLimits {
            result_rows: Some(10),
            query_time: Some(Duration::from_millis(1500)),
            ..TenantLimits::default()
        };
        store.add_tenant(&acme, &limits).unwrap();
        assert!(matches!(
            store.add_tenant(&acme, &limits),
            Err(StoreError::TenantExists { .. })
        ));
        assert_eq!(store.tenants().unwrap()[0].limits, limits);
        let token = store
            .issue_token(Some(&acme), AccessRole::Read, None)
            .unwrap();
        let admin = store.issue_token(None, AccessRole::Admin, None).unwrap();
        drop(store.open_tenant(&acme).unwrap());
        assert!(directory.path().join("tenants/acme").is_dir());
        let revoked = store.remove_tenant(&acme).unwrap();
        assert_eq!(revoked, vec![token.record.id]);
        assert!(!directory.path().join("tenants/acme").exists());
        assert!(store.tenants().unwrap().is_empty());
        assert_eq!(store.tokens().unwrap(), vec![admin.record]);
    }
}
