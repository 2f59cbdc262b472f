//! `Store`: a `HistoryStore` (on disk, in memory, or on a SPARQL server) and what the
//! commands do with it, each call mirroring its command in `src/bin/ihigraph/commands/`.
//! Store work runs with the GIL released.

use crate::documents::{self, Inputs, PyDiagnostic};
use crate::errors::{self, Location};
use crate::terms::{self, Answer};
use crate::values::{self, to_python};
use ihigraph::context::{ContextFormat, ContextOptions, SystemPrompt, Tokenizer, session_context};
use ihigraph::ingest::{Ingest, IngestEvent, IngestSummary, NewSession, append_turn};
use ihigraph::integrity::{Status as Found, fingerprint_sessions, verify};
use ihigraph::memory::{
    DeletionReceipt, DeletionTotals, MemoryKind, PutItem, Remember, Subject, delete_item,
    delete_session, delete_session_and_branches, erase_subject, forget, keyed_item_id, keyed_items,
    memories_arguments, prune, put_item, refresh_item, remember,
};
use ihigraph::query::{MEMORIES, SESSIONS, parse_date_time};
use ihigraph::read::InputDocument;
use ihigraph::report::{ReportOptions, report};
use ihigraph::store::{
    Credentials, Endpoint, Limits, RemoteOptions, RetentionPeriod, SearchHit, SearchKind,
    TenantLimits, TenantName,
};
use ihigraph::{
    Arguments, CannedQuery, CheckOptions, ExportFormat, HistoryStore, SchemeRequest, SearchRequest,
};
use oxsdatatypes::DateTime;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use std::path::PathBuf;
use std::sync::{RwLock, RwLockReadGuard, TryLockError};
use std::time::Duration;

/// A store of interaction histories: a directory on disk, memory (``path=None``), or a
/// SPARQL 1.1 server (``endpoint=``).
///
/// >>> import ihigraph
/// >>> store = ihigraph.Store()
/// >>> chat = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
/// >>> store.ingest(chat, from_="openai-chat", session_id="greeting").sessions
/// 1
/// >>> [row["turnIndex"] for row in store.query("recent-turns", session="greeting", n=3)]
/// [0]
#[pyclass(name = "Store", module = "ihigraph", frozen)]
pub struct PyStore {
    /// The store, until `close` takes it: each call holds it for its time (a `close`
    /// waits for the calls under way, and every call after it is refused).
    inner: RwLock<Option<HistoryStore>>,
    /// Where the store is, for `repr` (also once it is closed).
    location: String,
    /// The LangChain chats written last (see `chat::Written`).
    chats: crate::chat::Written,
}

/// The store while one call uses it.
struct Open<'a>(RwLockReadGuard<'a, Option<HistoryStore>>);

impl std::ops::Deref for Open<'_> {
    type Target = HistoryStore;

    fn deref(&self) -> &HistoryStore {
        self.0
            .as_ref()
            .expect("an Open is made only of a store not closed")
    }
}

impl PyStore {
    fn new_open(inner: HistoryStore) -> Self {
        Self {
            location: inner.location(),
            inner: RwLock::new(Some(inner)),
            chats: Default::default(),
        }
    }

    /// The store for one call, or `StoreError` once it is closed. A `close` waiting for
    /// the calls under way is waited for without the GIL (which those calls need to
    /// return), then the store is found closed.
    fn open(&self, py: Python<'_>) -> PyResult<Open<'_>> {
        let guard = loop {
            match self.inner.try_read() {
                Ok(guard) => break guard,
                Err(TryLockError::Poisoned(poisoned)) => break poisoned.into_inner(),
                Err(TryLockError::WouldBlock) => {
                    py.detach(|| drop(self.inner.read()));
                }
            }
        };
        if guard.is_none() {
            return Err(errors::raise::<errors::StoreError>(
                format!("this store ({}) is closed", self.location),
                &Location::default(),
                Vec::new(),
            ));
        }
        Ok(Open(guard))
    }
}

/// Opens (creating if needed) the store in a directory, with reasoning turned on or off
/// when `reasoning` says.
fn open_directory(
    py: Python<'_>,
    path: &std::path::Path,
    request: &SchemeRequest,
    reasoning: Option<bool>,
    tenant: Option<&str>,
) -> PyResult<HistoryStore> {
    std::fs::create_dir_all(path).map_err(|e| {
        errors::raise::<errors::StoreError>(
            format!("cannot create store directory {}: {e}", path.display()),
            &Location::default(),
            Vec::new(),
        )
    })?;
    let tenant: Option<TenantName> = tenant
        .map(str::parse)
        .transpose()
        .map_err(|error: ihigraph::StoreError| errors::usage(format!("tenant: {error}")))?;
    stored(py.detach(|| {
        // A tenant's store, found through the store's register once that is closed.
        let (path, request) = match &tenant {
            Some(name) => HistoryStore::open(path, request)?.tenant_location(name)?,
            None => (path.to_owned(), request.clone()),
        };
        match reasoning {
            Some(on) => HistoryStore::set_reasoning(&path, &request, on),
            None => HistoryStore::open(&path, &request),
        }
    }))
}

/// Turns a store result into Python's exception for it.
fn stored<T>(result: Result<T, ihigraph::StoreError>) -> PyResult<T> {
    result.map_err(|error| errors::store_error(&error))
}

#[pymethods]
impl PyStore {
    /// Opens (creating if needed) the store in directory ``path``, a new store in memory
    /// when ``path`` is ``None``, or the store on the SPARQL server at ``endpoint``
    /// (credentials from ``user``/``password`` or ``token``). ``base`` and
    /// ``session_template`` set the IRI scheme of a new store. ``reasoning=True`` turns
    /// reasoning on (what the ontologies entail, kept beside the store for queries run
    /// with ``inferred=True``), ``False`` off; ``None`` leaves a store as it is.
    /// ``tenant`` opens that tenant's store of the store in ``path`` (``ihigraph tenant
    /// add`` makes one): its own sessions, memory and index.
    #[new]
    #[pyo3(signature = (path = None, *, endpoint = None, update_endpoint = None, graph_store = None,
        user = None, password = None, token = None, timeout = 30.0, base = None,
        session_template = None, reasoning = None, tenant = None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        path: Option<PathBuf>,
        endpoint: Option<&str>,
        update_endpoint: Option<&str>,
        graph_store: Option<&str>,
        user: Option<String>,
        password: Option<String>,
        token: Option<String>,
        timeout: f64,
        base: Option<String>,
        session_template: Option<String>,
        reasoning: Option<bool>,
        tenant: Option<String>,
    ) -> PyResult<Self> {
        let request = SchemeRequest {
            base,
            session_template,
        };
        if tenant.is_some() && path.is_none() {
            return Err(errors::usage(
                "tenant: a tenant is a store of its own beside a store directory: give its path",
            ));
        }
        if let Some(endpoint) = endpoint {
            if path.is_some() {
                return Err(errors::usage("give a path or an endpoint, not both"));
            }
            if reasoning == Some(true) {
                return Err(errors::usage(
                    "reasoning is kept beside a store ihigraph keeps: not on a server",
                ));
            }
            let url = |name: &str, url: &str| {
                Endpoint::parse(url).map_err(|e| errors::usage(format!("{name}: {e}")))
            };
            let credentials = match (user, token) {
                (Some(_), Some(_)) => return Err(errors::usage("give user or token, not both")),
                (Some(user), None) => Credentials::Password {
                    user,
                    password: password.unwrap_or_default(),
                },
                (None, Some(token)) => Credentials::Bearer(token),
                (None, None) => Credentials::None,
            };
            let request_timeout = Duration::try_from_secs_f64(timeout)
                .ok()
                .filter(|d| !d.is_zero())
                .ok_or_else(|| {
                    errors::usage(format!(
                        "timeout={timeout}: give a positive number of seconds"
                    ))
                })?;
            let options = RemoteOptions {
                query: url("endpoint", endpoint)?,
                update: update_endpoint
                    .map(|u| url("update_endpoint", u))
                    .transpose()?,
                graph_store: graph_store.map(|u| url("graph_store", u)).transpose()?,
                credentials,
                limits: Limits {
                    request: request_timeout,
                    ..Limits::default()
                },
                basic_over_http: false,
            };
            let inner = stored(py.detach(|| HistoryStore::connect(options, &request)))?;
            return Ok(Self::new_open(inner));
        }
        let inner = match path {
            None => stored(py.detach(|| {
                let store = HistoryStore::in_memory(&request)?;
                if reasoning == Some(true) {
                    store.reasoning_in_memory()
                } else {
                    Ok(store)
                }
            }))?,
            Some(path) => open_directory(py, &path, &request, reasoning, tenant.as_deref())?,
        };
        Ok(Self::new_open(inner))
    }

    fn __repr__(&self) -> String {
        let closed = match self.inner.try_read() {
            Ok(guard) if guard.is_none() => ", closed",
            _ => "",
        };
        format!("Store({:?}{closed})", self.location)
    }

    /// Closes the store: waits for the calls under way, then for the full-text index's
    /// last write and the merges of its segments that writes began, and lets the store's
    /// files go (another process may then open them). Every call after it raises
    /// ``StoreError``; closing again does nothing. A store is closed when it is
    /// collected too, but only ``close()`` (or ``with``) says when, and raises what
    /// failed.
    ///
    /// >>> import ihigraph
    /// >>> with ihigraph.Store() as store:
    /// ...     _ = store.ingest([{"role": "user", "content": "hi"}], from_="openai-chat", session_id="s")
    /// >>> store.sessions()
    /// Traceback (most recent call last):
    ///   ...
    /// ihigraph.StoreError: this store (memory) is closed
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        let taken = py.detach(|| {
            let mut guard = self
                .inner
                .write()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            guard.take()
        });
        self.chats.forget_all();
        match taken {
            Some(store) => stored(py.detach(|| store.close())),
            None => Ok(()),
        }
    }

    /// ``with Store(...) as store:``: the store, closed when the block ends.
    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    /// Closes the store (see ``close``); an exception of the block goes on.
    #[pyo3(signature = (_kind = None, _value = None, _traceback = None))]
    fn __exit__(
        &self,
        py: Python<'_>,
        _kind: Option<&Bound<'_, PyAny>>,
        _value: Option<&Bound<'_, PyAny>>,
        _traceback: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<bool> {
        self.close(py)?;
        Ok(false)
    }

    /// Checks, maps and stores documents: paths (files, directories of ``.json`` and
    /// ``.jsonl``), PGM-IHI documents as dicts, or histories in another format
    /// (``from_="langchain"``, ``"openai-chat"``, ``"auto"``...). A stored session with
    /// the same id is replaced. A refused document raises ``ValidationError`` (or
    /// ``ConversionError``) after the others are stored, unless ``strict=False``: the
    /// summary's ``refused`` then lists it.
    #[pyo3(signature = (sources, *, from_ = "pgm-ihi", lenient = false, strict = true, session_id = None))]
    fn ingest(
        &self,
        py: Python<'_>,
        sources: &Bound<'_, PyAny>,
        from_: &str,
        lenient: bool,
        strict: bool,
        session_id: Option<String>,
    ) -> PyResult<IngestReport> {
        let inputs = Inputs::read(sources)?;
        let check = CheckOptions { lenient };
        let store = &*self.open(py)?;
        let (summary, diagnostics) = if from_ == "pgm-ihi" {
            py.detach(|| run_ingest(store, check, inputs.into_documents()))
        } else {
            let choice = documents::choice(from_)?;
            let options = documents::import_options(session_id, None, None)?;
            let histories = py.detach(|| documents::convert_inputs(&inputs, choice, &options))?;
            let converted = histories
                .into_iter()
                .enumerate()
                .map(|(index, history)| {
                    let value =
                        serde_json::to_value(history).map_err(|e| errors::usage(e.to_string()))?;
                    Ok(InputDocument {
                        origin: ihigraph::read::Origin {
                            name: format!("<converted {}>", index + 1),
                            line: None,
                        },
                        value: Ok(value),
                    })
                })
                .collect::<PyResult<Vec<_>>>()?;
            py.detach(|| run_ingest(store, check, converted))
        };
        let summary = summary.map_err(|error| errors::ingest_error(&error))?;
        let report = IngestReport::new(&summary, diagnostics);
        if let Some(refusal) = summary.refused.first().filter(|_| strict) {
            return Err(errors::refused(
                &format!(
                    "{} document(s) refused, {} session(s) stored",
                    summary.refused.len(),
                    summary.sessions
                ),
                Some(&refusal.origin.name),
                refusal.origin.line,
                std::slice::from_ref(&refusal.error),
            ));
        }
        Ok(report)
    }

    /// The ids of the stored sessions, sorted.
    fn sessions(&self, py: Python<'_>) -> PyResult<Vec<String>> {
        let store = &*self.open(py)?;
        let mut ids: Vec<String> = stored(py.detach(|| store.sessions()))?
            .into_iter()
            .map(|(id, _)| id)
            .collect();
        ids.sort();
        Ok(ids)
    }

    /// Whether this store reasons (see ``Store(reasoning=...)``).
    #[getter]
    fn reasoning(&self, py: Python<'_>) -> PyResult<bool> {
        let store = &*self.open(py)?;
        Ok(store.reasons())
    }

    /// The names of this store's tenants (each opened with ``Store(path, tenant=NAME)``).
    fn tenants(&self, py: Python<'_>) -> PyResult<Vec<String>> {
        let store = &*self.open(py)?;
        let tenants = stored(store.tenants())?;
        Ok(tenants
            .into_iter()
            .map(|tenant| tenant.name.to_string())
            .collect())
    }

    /// Adds a tenant to this store (on disk): a store of its own beside it, its nodes
    /// under the base's ``tenant/NAME/``, opened with ``Store(path, tenant=NAME)``. Its
    /// limits on a server are set with ``ihigraph tenant set``.
    fn add_tenant(&self, py: Python<'_>, name: &str) -> PyResult<()> {
        let store = &*self.open(py)?;
        let name: TenantName = name
            .parse()
            .map_err(|error: ihigraph::StoreError| errors::usage(format!("name: {error}")))?;
        stored(store.add_tenant(&name, &TenantLimits::default()))?;
        Ok(())
    }

    /// Runs a canned query (``ihigraph queries`` lists them) with its parameters as
    /// keywords, and gives its rows as dicts; ``terms=True`` gives pyoxigraph terms;
    /// ``inferred=True`` runs it over the sessions with what they entail (a store that
    /// reasons).
    #[pyo3(signature = (name, *, terms = false, inferred = false, **params))]
    fn query(
        &self,
        py: Python<'_>,
        name: &str,
        terms: bool,
        inferred: bool,
        params: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        let canned = CannedQuery::named(name).map_err(|e| errors::store_error(&e.into()))?;
        let mut arguments = Arguments::new();
        if let Some(params) = params {
            for (key, value) in params.iter() {
                let key: String = key.extract()?;
                let text = if value.is_instance_of::<pyo3::types::PyBool>() {
                    return Err(errors::usage(format!(
                        "{key}: a bool is no query parameter"
                    )));
                } else {
                    value.str()?.to_string()
                };
                arguments = arguments.raw(key.as_str(), text.as_str());
            }
        }
        let store = &*self.open(py)?;
        let answer = py.detach(|| -> PyResult<Answer> {
            let results = if inferred {
                stored(store.run_inferred(canned, &arguments))?
            } else {
                stored(store.run(canned, &arguments))?
            };
            terms::read_answer(results).map_err(query_failed)
        })?;
        wrap_terms(py, terms::answer_to_python(py, answer, terms)?, terms)
    }

    /// Runs a SPARQL query: rows as dicts (SELECT), a bool (ASK), or triples (CONSTRUCT,
    /// DESCRIBE); ``terms=True`` gives pyoxigraph terms instead of plain values;
    /// ``inferred=True`` runs it over the sessions with what they entail.
    #[pyo3(signature = (query, *, terms = false, inferred = false))]
    fn sparql(
        &self,
        py: Python<'_>,
        query: &str,
        terms: bool,
        inferred: bool,
    ) -> PyResult<Py<PyAny>> {
        let store = &*self.open(py)?;
        let answer = py.detach(|| -> PyResult<Answer> {
            let results = if inferred {
                stored(store.query_inferred(query, &Default::default()))?
            } else {
                stored(store.query(query))?
            };
            terms::read_answer(results).map_err(query_failed)
        })?;
        wrap_terms(py, terms::answer_to_python(py, answer, terms)?, terms)
    }

    /// Runs a SPARQL update (it may change sessions: their digests are dropped with them).
    fn update(&self, py: Python<'_>, update: &str) -> PyResult<()> {
        let store = &*self.open(py)?;
        // An update may change a chat's session without a new fingerprint record.
        self.chats.forget_all();
        stored(py.detach(|| store.update(update)))
    }

    /// A session back as its PGM-IHI document (a dict).
    fn history(&self, py: Python<'_>, session: &str) -> PyResult<Py<PyAny>> {
        let store = &*self.open(py)?;
        let history = stored(py.detach(|| store.history(session)))?;
        let value = serde_json::to_value(&history).map_err(|e| errors::usage(e.to_string()))?;
        to_python(py, &value)
    }

    /// The store, or one session, as text: ``trig``, ``nquads``, ``turtle``, ``jsonld``,
    /// or ``pgm-ihi`` (a list of PGM-IHI documents as dicts).
    #[pyo3(signature = (format = "trig", *, session = None))]
    fn export(&self, py: Python<'_>, format: &str, session: Option<&str>) -> PyResult<Py<PyAny>> {
        let store = &*self.open(py)?;
        let format = match format {
            "trig" => ExportFormat::TriG,
            "nquads" => ExportFormat::NQuads,
            "turtle" => ExportFormat::Turtle,
            "jsonld" => ExportFormat::JsonLd,
            "pgm-ihi" => return self.documents(py, session),
            other => {
                return Err(errors::usage(format!(
                    "format={other:?}: expected trig, nquads, turtle, jsonld or pgm-ihi"
                )));
            }
        };
        let mut bytes = Vec::new();
        stored(py.detach(|| store.export(&mut bytes, format, session)))?;
        let text = String::from_utf8(bytes).map_err(|e| errors::usage(e.to_string()))?;
        Ok(text.into_pyobject(py)?.into_any().unbind())
    }

    /// Appends one turn (a dict with ``Role``, ``PRCPrompt``, ``BKNResponse``...) to a
    /// session; a last turn awaiting its response is completed in place. ``create`` (a
    /// dict of ``MInstanceID``, ``UEnvironmentID``, and ``DataXMData`` or ``DataID`` and
    /// ``SourceAIM``) starts a new session. Gives what was done as a dict.
    #[pyo3(signature = (session, turn, *, create = None, lenient = false))]
    fn append(
        &self,
        py: Python<'_>,
        session: &str,
        turn: &Bound<'_, PyAny>,
        create: Option<&Bound<'_, PyDict>>,
        lenient: bool,
    ) -> PyResult<Py<PyAny>> {
        let store = &*self.open(py)?;
        let turn = values::from_python(turn)?;
        let create = create.map(new_session).transpose()?;
        let options = CheckOptions { lenient };
        let outcome = py
            .detach(|| append_turn(store, session, &turn, create.as_ref(), options))
            .map_err(|error| errors::ingest_error(&error))?;
        let dict = PyDict::new(py);
        dict.set_item("created", outcome.created)?;
        dict.set_item("completed", outcome.completed)?;
        dict.set_item("turn_count", outcome.turn_count)?;
        let warnings: Vec<String> = outcome.warnings.iter().map(ToString::to_string).collect();
        dict.set_item("warnings", warnings)?;
        Ok(dict.into_any().unbind())
    }

    /// Deletes a session, the memory made from it alone, and its fingerprint record, and
    /// gives the receipt (``mentions_left == 0``: nothing in the store names it any more).
    /// ``dry_run`` tells what would go; ``with_branches`` deletes the sessions forked
    /// from it too (a list of receipts then).
    #[pyo3(signature = (session, *, dry_run = false, with_branches = false))]
    fn delete(
        &self,
        py: Python<'_>,
        session: &str,
        dry_run: bool,
        with_branches: bool,
    ) -> PyResult<Py<PyAny>> {
        let store = &*self.open(py)?;
        if with_branches {
            let receipts = py
                .detach(|| delete_session_and_branches(store, session, dry_run))
                .map_err(|e| errors::memory_error(&e))?;
            let list = PyList::empty(py);
            for receipt in &receipts {
                list.append(receipt_dict(py, receipt)?)?;
            }
            return Ok(list.into_any().unbind());
        }
        let receipt = py
            .detach(|| delete_session(store, session, dry_run))
            .map_err(|e| errors::memory_error(&e))?;
        Ok(receipt_dict(py, &receipt)?.into_any().unbind())
    }

    /// The store's retention period as an ISO 8601 duration (``"P90D"``), or None: how
    /// long a session is kept after its last turn (``ihigraph retention show``).
    fn retention(&self, py: Python<'_>) -> PyResult<Option<String>> {
        let store = &*self.open(py)?;
        let period = py
            .detach(|| store.retention())
            .map_err(|e| errors::store_error(&e))?;
        Ok(period.map(|period| period.to_string()))
    }

    /// Sets the store's retention period (``"90d"``, ``"12h"``, ``"2w"``, ``"P90D"``), or
    /// removes it with None (``ihigraph retention set|clear``); nothing is deleted here.
    #[pyo3(signature = (period))]
    fn set_retention(&self, py: Python<'_>, period: Option<&str>) -> PyResult<()> {
        let period = period
            .map(|text| text.parse::<RetentionPeriod>())
            .transpose()
            .map_err(|e| errors::usage(e.to_string()))?;
        let store = &*self.open(py)?;
        py.detach(|| store.set_retention(period))
            .map_err(|e| errors::store_error(&e))
    }

    /// Deletes the sessions whose last turn is older than the retention period
    /// (``ihigraph prune``), each with its receipt: a dict with ``cutoff``, ``receipts``,
    /// ``totals``, ``kept`` and ``undated``. ``now`` (RFC 3339) stands for the present;
    /// a ValueError when the store has no retention period.
    #[pyo3(signature = (*, dry_run = false, now = None))]
    fn prune(&self, py: Python<'_>, dry_run: bool, now: Option<&str>) -> PyResult<Py<PyAny>> {
        let now = match now {
            Some(text) => parse_date_time(text)
                .ok_or_else(|| errors::usage(format!("now={text:?} is not an RFC 3339 time")))?,
            None => DateTime::now(),
        };
        let store = &*self.open(py)?;
        let Some(period) = py
            .detach(|| store.retention())
            .map_err(|e| errors::store_error(&e))?
        else {
            return Err(errors::usage(
                "the store has no retention period: set one with set_retention(\"90d\")",
            ));
        };
        let pruning = py
            .detach(|| prune(store, period, now, dry_run))
            .map_err(|e| errors::memory_error(&e))?;
        let dict = PyDict::new(py);
        dict.set_item("retention", period.to_string())?;
        dict.set_item("cutoff", pruning.cutoff.to_string())?;
        dict.set_item("dry_run", pruning.dry_run)?;
        dict.set_item("receipts", receipt_list(py, &pruning.receipts)?)?;
        dict.set_item("totals", totals_dict(py, &pruning.totals)?)?;
        dict.set_item("kept", pruning.kept)?;
        dict.set_item("undated", &pruning.undated)?;
        Ok(dict.into_any().unbind())
    }

    /// Deletes every session that names a subject, ``where`` being ``instance=ID``,
    /// ``environment=ID`` or ``user=ID`` (``ihigraph delete --where``), each with its
    /// receipt, then checks that nothing in the store names it: a dict with ``receipts``,
    /// ``totals`` and ``subject_mentions_left`` (0 when nothing does).
    #[pyo3(signature = (r#where, *, dry_run = false))]
    fn erase(&self, py: Python<'_>, r#where: &str, dry_run: bool) -> PyResult<Py<PyAny>> {
        let subject: Subject = r#where
            .parse()
            .map_err(|e: ihigraph::memory::SubjectError| errors::usage(e.to_string()))?;
        let store = &*self.open(py)?;
        let erasure = py
            .detach(|| erase_subject(store, &subject, dry_run))
            .map_err(|e| errors::memory_error(&e))?;
        let dict = PyDict::new(py);
        dict.set_item("subject", erasure.subject.to_string())?;
        dict.set_item("dry_run", erasure.dry_run)?;
        dict.set_item("receipts", receipt_list(py, &erasure.receipts)?)?;
        dict.set_item("totals", totals_dict(py, &erasure.totals)?)?;
        dict.set_item("subject_mentions_left", erasure.subject_mentions_left)?;
        Ok(dict.into_any().unbind())
    }

    /// Context for the next model call of a session, within ``budget`` tokens, in a
    /// provider's request shape (``openai-chat``, ``openai-responses``, ``anthropic``,
    /// ``gemini``): a dict with ``request`` (to send as is, with the model and tools
    /// added), ``tokens``, ``turns``, ``omitted``...
    #[pyo3(signature = (session, budget = 8000, *, format = "openai-chat", tokenizer = None,
        system = "keep", until = None))]
    #[allow(clippy::too_many_arguments)]
    fn context(
        &self,
        py: Python<'_>,
        session: &str,
        budget: usize,
        format: &str,
        tokenizer: Option<&str>,
        system: &str,
        until: Option<u64>,
    ) -> PyResult<Py<PyAny>> {
        let store = &*self.open(py)?;
        let options = ContextOptions {
            budget,
            format: format
                .parse::<ContextFormat>()
                .map_err(|e| errors::usage(format!("format: {e}")))?,
            tokenizer: tokenizer
                .map(|name| name.parse::<Tokenizer>())
                .transpose()
                .map_err(|e| errors::usage(format!("tokenizer: {e}")))?,
            system: match system {
                "keep" => SystemPrompt::Keep,
                "drop" => SystemPrompt::Drop,
                other => {
                    return Err(errors::usage(format!(
                        "system={other:?}: expected keep or drop"
                    )));
                }
            },
            until,
        };
        let context = py
            .detach(|| session_context(store, session, &options))
            .map_err(|e| errors::context_error(&e))?;
        let dict = PyDict::new(py);
        dict.set_item("request", to_python(py, &context.request)?)?;
        dict.set_item("format", context.format.name())?;
        dict.set_item("tokenizer", context.tokenizer.to_string())?;
        dict.set_item("tokens", context.tokens)?;
        dict.set_item("budget", context.budget)?;
        dict.set_item("turns", context.turns)?;
        dict.set_item("awaiting", context.awaiting)?;
        dict.set_item("turns_available", context.turns_available)?;
        let omitted: Vec<(String, String, String)> = context
            .omitted
            .into_iter()
            .map(|o| (o.turn, o.pointer, o.what))
            .collect();
        dict.set_item("omitted", omitted)?;
        Ok(dict.into_any().unbind())
    }

    /// Remembers a fact, decision or lesson drawn from a turn of a session (its
    /// provenance); the same kind and text again adds a source. Gives the item's id.
    #[pyo3(signature = (session, turn, text, *, kind = "fact", valid_from = None, valid_until = None))]
    #[allow(clippy::too_many_arguments)]
    fn remember(
        &self,
        py: Python<'_>,
        session: String,
        turn: u64,
        text: String,
        kind: &str,
        valid_from: Option<&str>,
        valid_until: Option<&str>,
    ) -> PyResult<String> {
        let store = &*self.open(py)?;
        let request = Remember {
            session,
            turn,
            kind: memory_kind(kind)?,
            text,
            valid_from: valid_from.map(|t| time("valid_from", t)).transpose()?,
            valid_until: valid_until.map(|t| time("valid_until", t)).transpose()?,
        };
        let item = py
            .detach(|| remember(store, &request, DateTime::now()))
            .map_err(|e| errors::memory_error(&e))?;
        Ok(item.id)
    }

    /// The memory items (rows as dicts), of one session or kind, valid ``at`` a time.
    #[pyo3(signature = (*, session = None, kind = None, at = None))]
    fn memory(
        &self,
        py: Python<'_>,
        session: Option<&str>,
        kind: Option<&str>,
        at: Option<&str>,
    ) -> PyResult<Py<PyAny>> {
        let store = &*self.open(py)?;
        let mut arguments = memories_arguments(session, kind.map(memory_kind).transpose()?);
        if let Some(at) = at {
            arguments = arguments.date_time("at", time("at", at)?);
        }
        let answer = py.detach(|| -> PyResult<Answer> {
            let results = stored(store.run(&MEMORIES, &arguments))?;
            terms::read_answer(results).map_err(query_failed)
        })?;
        terms::answer_to_python(py, answer, false)
    }

    /// Full-text search of the store's index (BM25; see docs/search.md for the syntax:
    /// words all required, ``"a phrase"``, ``prefix*``, ``OR``, ``-word``), best first:
    /// each hit a dict with ``score``, ``session`` (empty for a memory item), ``item``
    /// (a memory item's IRI), ``turn`` (the turn's IRI), ``turn_index``, ``role``,
    /// ``time``, ``kind`` (``prompt``, ``answer``, ``call``, ``result``, ``memory``),
    /// ``language``, ``snippet`` (the text around the match) and ``highlights`` (the
    /// matched words as ``(start, end)`` character offsets into ``snippet``). Filters:
    /// ``session``, ``role`` (``H-User``, ``A-User``, ``BKN``), ``since`` and ``until``
    /// (RFC 3339 or a date), ``kind`` (one kind or a list of them); ``limit`` at most
    /// 1,000. A store on a SPARQL server has no index (``StoreError``); a query the
    /// index cannot read raises ``QueryError``.
    ///
    /// >>> import ihigraph
    /// >>> store = ihigraph.Store()
    /// >>> chat = [{"role": "user", "content": "Why does the deploy time out?"},
    /// ...         {"role": "assistant", "content": "The database migration is slow."}]
    /// >>> _ = store.ingest(chat, from_="openai-chat", session_id="ops")
    /// >>> [hit] = store.search("migration")
    /// >>> hit["session"], hit["turn_index"], hit["kind"]
    /// ('ops', 0, 'answer')
    /// >>> start, end = hit["highlights"][0]
    /// >>> hit["snippet"][start:end]
    /// 'migration'
    #[pyo3(signature = (query, *, session = None, role = None, since = None, until = None,
        kind = None, limit = 10))]
    #[allow(clippy::too_many_arguments)]
    fn search(
        &self,
        py: Python<'_>,
        query: String,
        session: Option<String>,
        role: Option<String>,
        since: Option<&str>,
        until: Option<&str>,
        kind: Option<&Bound<'_, PyAny>>,
        limit: usize,
    ) -> PyResult<Py<PyAny>> {
        let store = &*self.open(py)?;
        let request = SearchRequest {
            query,
            session,
            role,
            since: since
                .map(|t| time("since", t))
                .transpose()?
                .map(|t| t.to_string()),
            until: until
                .map(|t| time("until", t))
                .transpose()?
                .map(|t| t.to_string()),
            kinds: search_kinds(kind)?,
            limit,
        };
        let hits = py.detach(|| stored(store.search(&request)))?;
        let list = PyList::empty(py);
        for hit in &hits {
            list.append(hit_dict(py, hit)?)?;
        }
        Ok(list.into_any().unbind())
    }

    /// Forgets a memory item (by its id); gives its IRI.
    fn forget(&self, py: Python<'_>, item: &str) -> PyResult<String> {
        let store = &*self.open(py)?;
        let node = py
            .detach(|| forget(store, item))
            .map_err(|e| errors::memory_error(&e))?;
        Ok(node.into_string())
    }

    /// The report: one self-contained HTML page, written to ``path`` when given, and
    /// given back as text.
    #[pyo3(signature = (path = None, *, since = None, until = None, sessions = Vec::new()))]
    fn report(
        &self,
        py: Python<'_>,
        path: Option<PathBuf>,
        since: Option<&str>,
        until: Option<&str>,
        sessions: Vec<String>,
    ) -> PyResult<String> {
        let store = &*self.open(py)?;
        let options = ReportOptions {
            since: since.map(|t| time("since", t)).transpose()?,
            until: until.map(|t| time("until", t)).transpose()?,
            sessions,
        };
        let page = py
            .detach(|| report(store, &options))
            .map_err(|e| errors::report_error(&e))?;
        if let Some(path) = path {
            std::fs::write(&path, &page).map_err(|e| {
                errors::raise::<errors::IhigraphError>(
                    format!("cannot write {}: {e}", path.display()),
                    &Location::default(),
                    Vec::new(),
                )
            })?;
        }
        Ok(page)
    }

    /// The fingerprints (SHA-256 of the RDFC-1.0 canonical N-Quads) of sessions, all
    /// when none are named: ``{session: digest}``; ``record=True`` records them.
    #[pyo3(signature = (sessions = None, *, record = false))]
    fn hash(
        &self,
        py: Python<'_>,
        sessions: Option<Vec<String>>,
        record: bool,
    ) -> PyResult<Vec<(String, String)>> {
        let store = &*self.open(py)?;
        py.detach(|| {
            let sessions: Vec<(String, oxrdf::NamedNode)> = match sessions {
                None => stored(store.sessions())?,
                Some(ids) => ids
                    .into_iter()
                    .map(|id| {
                        let graph = store.scheme().session_graph(&id);
                        (id, graph)
                    })
                    .collect(),
            };
            let prints = stored(fingerprint_sessions(store, &sessions, &|_, _| {}))?;
            if let Some(((id, _), _)) = sessions.iter().zip(&prints).find(|(_, p)| p.quads == 0) {
                return Err(errors::store_error(&ihigraph::StoreError::UnknownSession {
                    session_id: id.clone(),
                }));
            }
            let digests = sessions
                .iter()
                .zip(&prints)
                .map(|((id, _), print)| (id.clone(), print.digest.clone()))
                .collect();
            if record {
                let taken = sessions
                    .into_iter()
                    .zip(prints)
                    .map(|((id, graph), print)| (id, graph, print))
                    .collect();
                stored(store.record_taken(taken))?;
            }
            Ok(digests)
        })
    }

    /// Checks that the store still holds what was written: every session's fingerprint
    /// taken again and compared with its record. Gives ``{session: status}``, where
    /// status is ``intact``, ``changed``, ``unrecorded``, ``moved``, ``missing``...
    #[pyo3(signature = (sessions = Vec::new()))]
    fn verify(&self, py: Python<'_>, sessions: Vec<String>) -> PyResult<Vec<(String, String)>> {
        let store = &*self.open(py)?;
        let report = py
            .detach(|| verify(store, &sessions, &|_, _| {}))
            .map_err(|e| errors::integrity_error(&e))?;
        Ok(report
            .checks
            .iter()
            .map(|check| {
                let status = match &check.status {
                    Found::Intact => "intact",
                    Found::Changed { .. } => "changed",
                    Found::Unrecorded { .. } => "unrecorded",
                    Found::Moved { .. } => "moved",
                    Found::Missing { .. } => "missing",
                    Found::OnlyIn { .. } => "only-in",
                    Found::Differs { .. } => "differs",
                    #[allow(unreachable_patterns)]
                    _ => "other",
                };
                (check.session_id.clone(), status.to_owned())
            })
            .collect())
    }

    /// The number of stored sessions.
    fn __len__(&self, py: Python<'_>) -> PyResult<usize> {
        let store = &*self.open(py)?;
        stored(py.detach(|| store.session_count()))
    }

    /// Whether a session is stored.
    fn __contains__(&self, py: Python<'_>, session: &str) -> PyResult<bool> {
        let store = &*self.open(py)?;
        let rows = py.detach(|| -> PyResult<bool> {
            let results = stored(store.run(&SESSIONS, &Arguments::new()))?;
            let Answer::Rows(rows) = terms::read_answer(results).map_err(query_failed)? else {
                return Ok(false);
            };
            Ok(rows.iter().any(|row| {
                row.iter()
                    .any(|(name, term)| name == "session" && term_text(term) == session)
            }))
        })?;
        Ok(rows)
    }

    /// Puts a JSON object under ``namespace`` (a tuple of labels) and ``key`` as a keyed
    /// memory item, replacing the one there; ``session`` and ``turn`` name the turn it
    /// was derived from, ``ttl`` (seconds) how long it lives after it is put or
    /// refreshed.
    #[pyo3(signature = (namespace, key, value, *, session = None, turn = None, ttl = None))]
    #[allow(clippy::too_many_arguments)]
    fn put_item(
        &self,
        py: Python<'_>,
        namespace: Vec<String>,
        key: &str,
        value: &Bound<'_, PyAny>,
        session: Option<&str>,
        turn: Option<u64>,
        ttl: Option<f64>,
    ) -> PyResult<()> {
        let store = &*self.open(py)?;
        let value = values::from_python(value)?;
        let source = match (session, turn) {
            (Some(session), Some(turn)) => Some((session, turn)),
            (None, None) => None,
            _ => return Err(errors::usage("give session and turn together")),
        };
        let put = PutItem {
            namespace: &namespace,
            key,
            value: &value,
            source,
            ttl: ttl.map(seconds).transpose()?,
        };
        py.detach(|| put_item(store, &put, utc_now()))
            .map_err(|e| errors::memory_error(&e))
    }

    /// Moves the expiry of the keyed item under ``namespace`` and ``key`` to now plus its
    /// time to live; whether it has one.
    fn refresh_item(&self, py: Python<'_>, namespace: Vec<String>, key: &str) -> PyResult<bool> {
        let store = &*self.open(py)?;
        py.detach(|| refresh_item(store, &namespace, key, utc_now()))
            .map_err(|e| errors::memory_error(&e))
    }

    /// Deletes the keyed item under ``namespace`` and ``key``; whether there was one.
    fn delete_item(&self, py: Python<'_>, namespace: Vec<String>, key: &str) -> PyResult<bool> {
        let store = &*self.open(py)?;
        py.detach(|| delete_item(store, &namespace, key))
            .map_err(|e| errors::memory_error(&e))
    }

    /// The keyed items whose namespace starts with ``prefix``, by namespace and key, as
    /// dicts (``namespace`` a tuple, ``key``, ``item`` (its IRI, as search hits name it),
    /// ``value``, ``created``, ``updated``, ``expires``, ``ttl``, ``session``, ``turn``);
    /// with ``at`` (RFC 3339), only those not expired then.
    #[pyo3(signature = (prefix = Vec::new(), *, at = None))]
    fn items(&self, py: Python<'_>, prefix: Vec<String>, at: Option<&str>) -> PyResult<Py<PyAny>> {
        let store = &*self.open(py)?;
        let at = at.map(|t| time("at", t)).transpose()?;
        let items = py
            .detach(|| keyed_items(store, &prefix, at))
            .map_err(|e| errors::memory_error(&e))?;
        let list = PyList::empty(py);
        for item in &items {
            let dict = PyDict::new(py);
            dict.set_item("namespace", pyo3::types::PyTuple::new(py, &item.namespace)?)?;
            dict.set_item("key", &item.key)?;
            let id = keyed_item_id(&item.namespace, &item.key);
            dict.set_item("item", store.scheme().memory_item(&id).as_str())?;
            dict.set_item("value", to_python(py, &item.value)?)?;
            dict.set_item("created", item.created.to_string())?;
            dict.set_item("updated", item.updated.to_string())?;
            dict.set_item("expires", item.expires.map(|t| t.to_string()))?;
            dict.set_item(
                "ttl",
                item.ttl
                    .and_then(|t| t.as_seconds().to_string().parse::<f64>().ok()),
            )?;
            dict.set_item("session", &item.session)?;
            dict.set_item("turn", item.turn)?;
            list.append(dict)?;
        }
        Ok(list.into_any().unbind())
    }

    /// The messages of a LangChain chat history kept in session ``session`` (dicts of
    /// ``messages_to_dict``), oldest first; an empty list when there is no such session.
    fn chat_messages(&self, py: Python<'_>, session: &str) -> PyResult<Py<PyAny>> {
        let store = &*self.open(py)?;
        let messages = py.detach(|| crate::chat::read_messages(store, session))?;
        to_python(py, &serde_json::Value::Array(messages))
    }

    /// The sessions holding a chat written as LangChain messages (by the chat adapters,
    /// or ``ingest(..., from_="langchain")``); with ``holding``, only those whose first
    /// message keeps that member in its ``data`` (``"llama_index"``: the chats of the
    /// LlamaIndex chat store). Reads each session back.
    #[pyo3(signature = (*, holding = None))]
    fn chat_sessions(&self, py: Python<'_>, holding: Option<&str>) -> PyResult<Vec<String>> {
        let store = &*self.open(py)?;
        py.detach(|| crate::chat::chat_sessions(store, holding))
    }

    /// Stores ``messages`` (dicts of ``messages_to_dict``) as the whole LangChain chat
    /// history of session ``session``: each AI message one turn, the messages before it
    /// its prompt. An empty list deletes the session.
    fn set_chat_messages(
        &self,
        py: Python<'_>,
        session: &str,
        messages: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let store = &*self.open(py)?;
        let messages = chat_list(messages)?;
        py.detach(|| crate::chat::set_messages(store, &self.chats, session, messages))
    }

    /// Appends ``messages`` to the LangChain chat history of session ``session``.
    fn add_chat_messages(
        &self,
        py: Python<'_>,
        session: &str,
        messages: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let store = &*self.open(py)?;
        let added = chat_list(messages)?;
        py.detach(|| crate::chat::add_messages(store, &self.chats, session, added))
    }
}

/// A list of message dicts, as JSON values.
fn chat_list(messages: &Bound<'_, PyAny>) -> PyResult<Vec<serde_json::Value>> {
    match values::from_python(messages)? {
        serde_json::Value::Array(messages) => Ok(messages),
        _ => Err(errors::usage("messages: expected a list of message dicts")),
    }
}

impl PyStore {
    fn documents(&self, py: Python<'_>, session: Option<&str>) -> PyResult<Py<PyAny>> {
        let ids = match session {
            Some(id) => vec![id.to_owned()],
            None => self.sessions(py)?,
        };
        let list = PyList::empty(py);
        for id in &ids {
            list.append(self.history(py, id)?)?;
        }
        Ok(list.into_any().unbind())
    }
}

fn run_ingest(
    store: &HistoryStore,
    check: CheckOptions,
    documents: Vec<InputDocument>,
) -> (
    Result<IngestSummary, ihigraph::IngestError>,
    Vec<PyDiagnostic>,
) {
    let mut diagnostics = Vec::new();
    let summary = Ingest::new(store).check(check).run(documents, |event| {
        if let IngestEvent::Prepared(document) = event {
            for diagnostic in &document.diagnostics {
                diagnostics.push(PyDiagnostic::new(
                    diagnostic,
                    Some(&document.origin.name),
                    document.origin.line,
                ));
            }
        }
    });
    (summary, diagnostics)
}

/// What an ingest did: sessions stored (``replaced`` and ``unchanged`` among them),
/// turns, quads, and every diagnostic (``refused``: the errors that refused documents).
#[pyclass(module = "ihigraph", frozen, get_all)]
pub struct IngestReport {
    /// Sessions stored (new, replaced or unchanged).
    pub sessions: usize,
    /// Of which replaced an earlier version.
    pub replaced: usize,
    /// Of which were stored already with the very same quads.
    pub unchanged: usize,
    /// Turns of the sessions stored.
    pub turns: usize,
    /// Quads of the sessions stored.
    pub quads: usize,
    /// Every diagnostic, warnings included.
    pub diagnostics: Vec<PyDiagnostic>,
    /// The first error of each refused document.
    pub refused: Vec<PyDiagnostic>,
}

impl IngestReport {
    fn new(summary: &IngestSummary, diagnostics: Vec<PyDiagnostic>) -> Self {
        Self {
            sessions: summary.sessions,
            replaced: summary.replaced,
            unchanged: summary.unchanged,
            turns: summary.turns,
            quads: summary.quads,
            diagnostics,
            refused: summary
                .refused
                .iter()
                .map(|r| PyDiagnostic::new(&r.error, Some(&r.origin.name), r.origin.line))
                .collect(),
        }
    }
}

#[pymethods]
impl IngestReport {
    fn __repr__(&self) -> String {
        format!(
            "IngestReport(sessions={}, replaced={}, unchanged={}, turns={}, quads={}, refused={})",
            self.sessions,
            self.replaced,
            self.unchanged,
            self.turns,
            self.quads,
            self.refused.len()
        )
    }
}

fn wrap_terms(py: Python<'_>, value: Py<PyAny>, terms: bool) -> PyResult<Py<PyAny>> {
    if !terms {
        return Ok(value);
    }
    // pyoxigraph terms are built in Python (ihigraph/terms.py), where the package lives.
    Ok(py
        .import("ihigraph.terms")?
        .call_method1("to_pyoxigraph", (value,))?
        .unbind())
}

fn query_failed(message: String) -> PyErr {
    errors::raise::<errors::QueryError>(message, &Location::default(), Vec::new())
}

fn term_text(term: &oxrdf::Term) -> &str {
    match term {
        oxrdf::Term::Literal(literal) => literal.value(),
        oxrdf::Term::NamedNode(node) => node.as_str(),
        _ => "",
    }
}

fn memory_kind(name: &str) -> PyResult<MemoryKind> {
    name.parse::<MemoryKind>()
        .map_err(|e| errors::usage(format!("kind: {e}")))
}

/// The kinds a search keeps: ``None`` (all), one kind's name, or a list of names.
fn search_kinds(kind: Option<&Bound<'_, PyAny>>) -> PyResult<Vec<SearchKind>> {
    let Some(kind) = kind else {
        return Ok(Vec::new());
    };
    let names: Vec<String> = match kind.extract::<String>() {
        Ok(name) => vec![name],
        Err(_) => kind.extract().map_err(|_| {
            errors::usage("kind: expected a kind's name or a list of them (prompt, answer, call, result, memory)")
        })?,
    };
    names
        .iter()
        .map(|name| {
            name.parse()
                .map_err(|e: String| errors::usage(format!("kind: {e}")))
        })
        .collect()
}

/// A search hit as a dict; its highlights as character offsets (the index gives bytes),
/// so that ``snippet[start:end]`` is the matched word.
fn hit_dict<'py>(py: Python<'py>, hit: &SearchHit) -> PyResult<Bound<'py, PyDict>> {
    let fragment = &hit.snippet.fragment;
    let chars = |byte: usize| fragment.get(..byte).map_or(0, |head| head.chars().count());
    let highlights: Vec<(usize, usize)> = hit
        .snippet
        .highlights
        .iter()
        .map(|&(from, to)| (chars(from), chars(to)))
        .collect();
    let dict = PyDict::new(py);
    dict.set_item("score", hit.score)?;
    dict.set_item("session", &hit.session_id)?;
    dict.set_item("item", &hit.item)?;
    dict.set_item("turn", &hit.turn)?;
    dict.set_item("turn_index", hit.turn_index)?;
    dict.set_item("role", &hit.role)?;
    dict.set_item("time", &hit.time)?;
    dict.set_item("kind", hit.kind.name())?;
    dict.set_item("language", &hit.language)?;
    dict.set_item("snippet", fragment)?;
    dict.set_item("highlights", highlights)?;
    Ok(dict)
}

fn time(name: &str, text: &str) -> PyResult<DateTime> {
    parse_date_time(text).ok_or_else(|| {
        errors::usage(format!(
            "{name}={text:?} is not a time (expected RFC 3339, 2026-03-14T08:00:00Z, or a date, 2026-03-14)"
        ))
    })
}

/// Now, in UTC with its zone written (`DateTime::now` has none): keyed items' times are
/// compared with times that have one, and Python reads them as aware datetimes.
fn utc_now() -> DateTime {
    let now = DateTime::now();
    if now.timezone_offset().is_some() {
        return now;
    }
    format!("{now}Z").parse().unwrap_or(now)
}

/// A number of seconds as a duration: positive, and to the millisecond.
fn seconds(value: f64) -> PyResult<oxsdatatypes::DayTimeDuration> {
    if !(value.is_finite() && value > 0.0 && value < 1e12) {
        return Err(errors::usage(format!(
            "ttl={value}: give a positive number of seconds"
        )));
    }
    let millis = (value * 1000.0).round() as i64;
    format!("PT{}.{:03}S", millis / 1000, millis % 1000)
        .parse()
        .map_err(|_| errors::usage(format!("ttl={value}: not a duration")))
}

fn new_session(create: &Bound<'_, PyDict>) -> PyResult<NewSession> {
    let text = |key: &str| -> PyResult<String> {
        create
            .get_item(key)?
            .ok_or_else(|| errors::usage(format!("create: needs {key}")))?
            .extract()
    };
    let metadata = match create.get_item("DataXMData")? {
        Some(metadata) => values::from_python(&metadata)?,
        None => NewSession::minimal_metadata(&text("DataID")?, &text("SourceAIM")?),
    };
    Ok(NewSession {
        m_instance_id: text("MInstanceID")?,
        u_environment_id: text("UEnvironmentID")?,
        data_exchange_metadata: metadata,
    })
}

fn receipt_list<'py>(
    py: Python<'py>,
    receipts: &[DeletionReceipt],
) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for receipt in receipts {
        list.append(receipt_dict(py, receipt)?)?;
    }
    Ok(list)
}

fn totals_dict<'py>(py: Python<'py>, totals: &DeletionTotals) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    dict.set_item("sessions", totals.sessions)?;
    dict.set_item("graph_triples", totals.graph_triples)?;
    dict.set_item("items_removed", totals.items_removed)?;
    dict.set_item("items_unlinked", totals.items_unlinked)?;
    dict.set_item("memory_triples", totals.memory_triples)?;
    dict.set_item("fingerprint_triples", totals.fingerprint_triples)?;
    dict.set_item("branch_link_triples", totals.branch_link_triples)?;
    dict.set_item("mentions_left", totals.mentions_left)?;
    Ok(dict)
}

fn receipt_dict<'py>(py: Python<'py>, receipt: &DeletionReceipt) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    dict.set_item("session_id", &receipt.session_id)?;
    dict.set_item("graph", receipt.graph.as_str())?;
    dict.set_item("graph_triples", receipt.graph_triples)?;
    dict.set_item("items_removed", &receipt.items_removed)?;
    dict.set_item("items_unlinked", &receipt.items_unlinked)?;
    dict.set_item("memory_triples", receipt.memory_triples)?;
    dict.set_item("fingerprint_triples", receipt.fingerprint_triples)?;
    dict.set_item("branches_kept", &receipt.branches_kept)?;
    dict.set_item("branch_link_triples", receipt.branch_link_triples)?;
    dict.set_item("iris_checked", receipt.iris_checked)?;
    dict.set_item("mentions_left", receipt.mentions_left)?;
    dict.set_item("dry_run", receipt.dry_run)?;
    Ok(dict)
}
