//! Tenants and access tokens: the register of a store that serves many teams, kept beside
//! it in `STORE_DIR/register.json` (mode 0600, replaced whole by a rename), never in the
//! store: no SPARQL query or update, whoever sends it, can read a token's digest or write
//! a token or a tenant into the register.
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
use crate::rdf::IriScheme;
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
    /// A query time limit given in seconds, as `--max-query-seconds` and the register
    /// over HTTP take it: `None` unless a positive, finite number.
    pub fn query_seconds(seconds: f64) -> Option<Duration> {
        Duration::try_from_secs_f64(seconds)
            .ok()
            .filter(|time| !time.is_zero())
    }

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
    /// Whether the store has tenants.
    tenants: bool,
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

    /// Whether the store has issued no token and has no tenant: a server over it then
    /// asks no token of a read.
    pub fn is_empty(&self) -> bool {
        self.tokens.is_empty() && !self.tenants
    }
}

/// The id and secret parts of a token's text, when it has the shape of one.
fn split_token(text: &str) -> Option<(&str, &str)> {
    let (id, secret) = text.strip_prefix(TOKEN_PREFIX)?.split_once('_')?;
    (!id.is_empty() && !secret.is_empty()).then_some((id, secret))
}

/// The register as `register.json` holds it.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct RegisterFile {
    /// The format's version: 1.
    version: u32,
    #[serde(default)]
    tenants: Vec<TenantEntry>,
    #[serde(default)]
    tokens: Vec<TokenEntry>,
}

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct TenantEntry {
    name: String,
    created: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    max_requests_per_minute: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    max_result_rows: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    max_query_milliseconds: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    max_body_bytes: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    max_stored_quads: Option<u64>,
}

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct TokenEntry {
    id: String,
    /// The SHA-256 of the whole token, in lower-case hex.
    digest: String,
    role: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    tenant: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    note: Option<String>,
    created: String,
}

/// The file of the register, in a store's directory.
pub const REGISTER_FILE: &str = "register.json";

/// The version of the register's format this build reads and writes.
const REGISTER_VERSION: u32 = 1;

impl TenantEntry {
    fn of(tenant: &Tenant) -> Self {
        let limits = &tenant.limits;
        Self {
            name: tenant.name.to_string(),
            created: tenant.created.clone(),
            max_requests_per_minute: limits.requests_per_minute,
            max_result_rows: limits.result_rows,
            max_query_milliseconds: limits
                .query_time
                .map(|time| u64::try_from(time.as_millis()).unwrap_or(u64::MAX)),
            max_body_bytes: limits.body_bytes,
            max_stored_quads: limits.stored_quads,
        }
    }

    fn tenant(&self) -> Result<Tenant, StoreError> {
        Ok(Tenant {
            name: self.name.parse()?,
            created: self.created.clone(),
            limits: TenantLimits {
                requests_per_minute: self.max_requests_per_minute,
                result_rows: self.max_result_rows,
                query_time: self.max_query_milliseconds.map(Duration::from_millis),
                body_bytes: self.max_body_bytes,
                stored_quads: self.max_stored_quads,
            },
        })
    }
}

/// The register, read.
#[derive(Debug, Default)]
struct Register {
    tenants: BTreeMap<TenantName, Tenant>,
    /// Each token's record and digest.
    tokens: BTreeMap<String, (TokenRecord, String)>,
}

impl Register {
    fn file(&self) -> RegisterFile {
        RegisterFile {
            version: REGISTER_VERSION,
            tenants: self.tenants.values().map(TenantEntry::of).collect(),
            tokens: self
                .tokens
                .values()
                .map(|(record, digest)| TokenEntry {
                    id: record.id.clone(),
                    digest: digest.clone(),
                    role: record.role.name().to_owned(),
                    tenant: record.tenant.as_ref().map(ToString::to_string),
                    note: record.note.clone(),
                    created: record.created.clone(),
                })
                .collect(),
        }
    }
}

impl HistoryStore {
    /// The tenants of this store, by name.
    pub fn tenants(&self) -> Result<Vec<Tenant>, StoreError> {
        Ok(self.register()?.tenants.into_values().collect())
    }

    /// The tokens of this store (without their secrets), by id.
    pub fn tokens(&self) -> Result<Vec<TokenRecord>, StoreError> {
        Ok(self
            .register()?
            .tokens
            .into_values()
            .map(|(record, _)| record)
            .collect())
    }

    /// The tokens of this store, and whether it has tenants, for checking requests.
    pub fn access_list(&self) -> Result<AccessList, StoreError> {
        let register = self.register()?;
        let mut list = AccessList {
            tenants: !register.tenants.is_empty(),
            ..AccessList::default()
        };
        for (id, (record, digest)) in register.tokens {
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
        let mut register = self.register()?;
        if register.tenants.contains_key(name) {
            return Err(StoreError::TenantExists {
                name: name.to_string(),
            });
        }
        let tenant = Tenant {
            name: name.clone(),
            created: now(),
            limits: limits.clone(),
        };
        register.tenants.insert(name.clone(), tenant.clone());
        self.write_register(&register)?;
        Ok(tenant)
    }

    /// Changes the limits a tenant has set (the others stay); gives the tenant as it now is.
    pub fn set_tenant_limits(
        &self,
        name: &TenantName,
        limits: &TenantLimits,
    ) -> Result<Tenant, StoreError> {
        let mut register = self.register()?;
        let tenant = register
            .tenants
            .get_mut(name)
            .ok_or_else(|| unknown(name))?;
        tenant.limits = tenant.limits.updated(limits);
        let tenant = tenant.clone();
        self.write_register(&register)?;
        Ok(tenant)
    }

    /// Removes a tenant: its register entry, its tokens, and its store's directory with
    /// everything in it. The tenant's store must not be open. Gives the ids of the tokens
    /// revoked with it.
    pub fn remove_tenant(&self, name: &TenantName) -> Result<Vec<String>, StoreError> {
        let mut register = self.register()?;
        register.tenants.remove(name).ok_or_else(|| unknown(name))?;
        let revoked: Vec<String> = register
            .tokens
            .iter()
            .filter(|(_, (record, _))| record.tenant.as_ref() == Some(name))
            .map(|(id, _)| id.clone())
            .collect();
        for id in &revoked {
            register.tokens.remove(id);
        }
        // The register first: a tenant half removed is no longer reachable.
        self.write_register(&register)?;
        let directory = self.tenants_directory()?.join(name.as_str());
        if directory.exists() {
            std::fs::remove_dir_all(&directory).map_err(|source| StoreError::TenantStore {
                path: directory.clone(),
                source,
            })?;
        }
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
        let mut register = self.register()?;
        if let Some(name) = tenant
            && !register.tenants.contains_key(name)
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
        register.tokens.insert(id, (record.clone(), digest));
        self.write_register(&register)?;
        Ok(IssuedToken { record, secret })
    }

    /// Revokes a token by its id; gives what the register held of it.
    pub fn revoke_token(&self, id: &str) -> Result<TokenRecord, StoreError> {
        let mut register = self.register()?;
        let (record, _) = register
            .tokens
            .remove(id)
            .ok_or_else(|| StoreError::UnknownToken {
                id: id.chars().take(80).collect(),
            })?;
        self.write_register(&register)?;
        Ok(record)
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
        self.in_directory(TENANTS_DIRECTORY)
    }

    /// Where the register lives: beside the store, in its directory.
    fn register_path(&self) -> Result<PathBuf, StoreError> {
        self.in_directory(REGISTER_FILE)
    }

    /// `name` in the store's directory: only a store on disk has one.
    fn in_directory(&self, name: &str) -> Result<PathBuf, StoreError> {
        self.backend
            .directory()
            .map(|directory| directory.join(name))
            .ok_or_else(|| StoreError::NoTenants {
                location: self.location(),
            })
    }

    /// Reads the register: empty when the store has none (or is not on disk).
    fn register(&self) -> Result<Register, StoreError> {
        let Ok(path) = self.register_path() else {
            return Ok(Register::default());
        };
        let text = match std::fs::read(&path) {
            Ok(text) => text,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                return Ok(Register::default());
            }
            Err(source) => return Err(StoreError::TenantStore { path, source }),
        };
        let bad = |message: String| StoreError::Register {
            path: path.clone(),
            message,
        };
        let file: RegisterFile =
            serde_json::from_slice(&text).map_err(|error| bad(error.to_string()))?;
        if file.version != REGISTER_VERSION {
            return Err(bad(format!(
                "version {} is not one this ihigraph reads ({REGISTER_VERSION})",
                file.version
            )));
        }
        let mut register = Register::default();
        for entry in &file.tenants {
            let tenant = entry.tenant().map_err(|error| bad(error.to_string()))?;
            register.tenants.insert(tenant.name.clone(), tenant);
        }
        for entry in file.tokens {
            let tenant = entry
                .tenant
                .as_deref()
                .map(str::parse::<TenantName>)
                .transpose()
                .map_err(|error| bad(error.to_string()))?;
            // A token of a tenant no longer in the register admits no one.
            if tenant
                .as_ref()
                .is_some_and(|name| !register.tenants.contains_key(name))
            {
                continue;
            }
            let record = TokenRecord {
                id: entry.id.clone(),
                role: entry
                    .role
                    .parse()
                    .map_err(|error: StoreError| bad(error.to_string()))?,
                tenant,
                note: entry.note,
                created: entry.created,
            };
            register.tokens.insert(entry.id, (record, entry.digest));
        }
        Ok(register)
    }

    /// Writes the register whole: into a new file beside it, flushed to disk, then moved
    /// into place, so that a crash leaves the old register or the new one. Readable by
    /// its owner only.
    fn write_register(&self, register: &Register) -> Result<(), StoreError> {
        use std::io::Write as _;
        let path = self.register_path()?;
        let failed = |source| StoreError::TenantStore {
            path: path.clone(),
            source,
        };
        let text = serde_json::to_vec_pretty(&register.file())
            .map_err(|error| failed(std::io::Error::other(error)))?;
        let partial = path.with_extension("json.partial");
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create(true).truncate(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let mut file = options.open(&partial).map_err(failed)?;
        file.write_all(&text).map_err(failed)?;
        file.sync_all().map_err(failed)?;
        std::fs::rename(&partial, &path).map_err(failed)?;
        Ok(())
    }
}

fn unknown(name: &TenantName) -> StoreError {
    StoreError::UnknownTenant {
        name: name.to_string(),
    }
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
        let secret_part = issued.secret.splitn(3, '_').nth(2).unwrap();
        for quad in store.backend.quads(None).unwrap() {
            assert!(!quad.unwrap().to_string().contains(secret_part));
        }
        let path = directory.path().join(REGISTER_FILE);
        let register = std::fs::read_to_string(&path).unwrap();
        assert!(!register.contains(secret_part) && register.contains(&issued.record.id));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        store.revoke_token(&issued.record.id).unwrap();
        assert_eq!(store.access_list().unwrap().check(&issued.secret), None);
    }

    #[test]
    fn a_broken_register_is_an_error_that_says_where() {
        let directory = tempfile::tempdir().unwrap();
        let store = HistoryStore::open(directory.path(), &Default::default()).unwrap();
        std::fs::write(
            directory.path().join(REGISTER_FILE),
            "{\"version\": 1, \"tenants\": [{\"name\": \"Bad/\"}]}",
        )
        .unwrap();
        let error = store.tenants().unwrap_err().to_string();
        assert!(error.contains("register.json"), "{error}");
        std::fs::write(directory.path().join(REGISTER_FILE), "{\"version\": 9}").unwrap();
        let error = store.tokens().unwrap_err().to_string();
        assert!(error.contains("version 9"), "{error}");
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
