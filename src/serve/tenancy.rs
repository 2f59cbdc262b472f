//! One server for many teams: each tenant's store behind a router of its own, opened when
//! a request first reaches it, under the tenant's limits (rows, query time, body size,
//! requests per minute, stored quads) where they are tighter than the server's.
//!
//! The front door finds who a request comes from and the tenant it acts in, and hands it
//! to that tenant's router: every door (SPARQL, the Graph Store, REST, OTLP, MCP, report,
//! context, search) then works on the tenant's own store, which holds nothing of any
//! other tenant's, whatever a request names.

use super::auth::Access;
use super::{ApiError, AppState, ServeOptions};
use crate::store::{HistoryStore, TenantLimits, TenantName};
use axum::Router;
use axum::http::StatusCode;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A store served: the store's own sessions, or one tenant's.
pub(crate) struct TenantApp {
    /// Its routes, their state holding its store.
    pub(crate) router: Router,
    /// That state: its store, its writer, the server's options with the tenant's limits
    /// where they are tighter.
    pub(crate) state: AppState,
    /// The tenant's limits as the register holds them.
    pub(crate) limits: TenantLimits,
    /// Its requests in the current minute.
    rate: Mutex<Window>,
    /// Whether its store holds its quota of quads, as counted after its last write.
    full: AtomicBool,
}

/// The requests of one minute.
struct Window {
    started: Instant,
    requests: u64,
}

impl Window {
    fn starting_now() -> Self {
        Self {
            started: Instant::now(),
            requests: 0,
        }
    }
}

/// What makes a store's routes from its state.
type Build = Box<dyn Fn(AppState) -> Router + Send + Sync>;

impl TenantApp {
    fn new(state: AppState, limits: TenantLimits, build: &Build) -> Self {
        Self {
            router: build(state.clone()),
            state,
            limits,
            rate: Mutex::new(Window::starting_now()),
            full: AtomicBool::new(false),
        }
    }

    /// Counts a request against the tenant's rate: 429 with the seconds to wait, beyond it.
    pub(crate) fn admit(&self) -> Result<(), ApiError> {
        let Some(most) = self.limits.requests_per_minute else {
            return Ok(());
        };
        let mut window = self
            .rate
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let now = Instant::now();
        if now.duration_since(window.started) >= Duration::from_secs(60) {
            *window = Window::starting_now();
        }
        if window.requests >= most {
            let wait = Duration::from_secs(60).saturating_sub(now.duration_since(window.started));
            return Err(ApiError::new(
                StatusCode::TOO_MANY_REQUESTS,
                format!(
                    "the tenant made its {most} requests of this minute (max-requests-per-minute): try again in {} s",
                    wait.as_secs() + 1
                ),
            )
            .with_retry_after(wait.as_secs() + 1));
        }
        window.requests += 1;
        Ok(())
    }

    /// The tenant's quota of quads when its store holds it.
    pub(crate) fn over_quota(&self) -> Option<u64> {
        self.full
            .load(Ordering::SeqCst)
            .then_some(self.limits.stored_quads)
            .flatten()
    }

    /// Counts the store's quads again after a write, when the tenant has a quota.
    pub(crate) async fn recount(self: &Arc<Self>) {
        let Some(quota) = self.limits.stored_quads else {
            return;
        };
        let app = Arc::clone(self);
        let _ = tokio::task::spawn_blocking(move || {
            if let Ok(count) = app.state.store.quad_count() {
                let full = u64::try_from(count).unwrap_or(u64::MAX) >= quota;
                app.full.store(full, Ordering::SeqCst);
            }
        })
        .await;
    }
}

/// Every store the server serves: the store's own sessions and its tenants' stores.
pub(crate) struct Tenancy {
    /// The store itself, which holds the register.
    pub(crate) root: Arc<TenantApp>,
    /// The tenants' stores opened so far.
    opened: tokio::sync::Mutex<HashMap<TenantName, Arc<TenantApp>>>,
    /// Makes a tenant's router from its state.
    build: Build,
    /// What every tenant's state shares with the store's (the server's options among it).
    template: AppState,
    /// Who may do what.
    pub(crate) access: Arc<Access>,
}

impl Tenancy {
    pub(crate) fn new(root: AppState, build: Build, access: Arc<Access>) -> Self {
        let app = TenantApp::new(root.clone(), TenantLimits::default(), &build);
        Self {
            root: Arc::new(app),
            opened: tokio::sync::Mutex::default(),
            build,
            template: root,
            access,
        }
    }

    /// What every store's state shares: the server's options, the places for large
    /// bodies.
    pub(crate) fn shared(&self) -> &AppState {
        &self.template
    }

    /// The store a request acts in: the store's own, or a tenant's (opened the first
    /// time, on a blocking thread).
    pub(crate) async fn app(
        &self,
        tenant: Option<&TenantName>,
    ) -> Result<Arc<TenantApp>, ApiError> {
        let Some(name) = tenant else {
            return Ok(Arc::clone(&self.root));
        };
        let mut opened = self.opened.lock().await;
        if let Some(app) = opened.get(name) {
            return Ok(Arc::clone(app));
        }
        let root = Arc::clone(&self.root.state.store);
        let wanted = name.clone();
        let (store, limits) = tokio::task::spawn_blocking(move || {
            let limits = root
                .tenants()?
                .into_iter()
                .find(|tenant| tenant.name == wanted)
                .map(|tenant| tenant.limits);
            let store = root.open_tenant(&wanted)?;
            Ok::<_, crate::store::StoreError>((store, limits.unwrap_or_default()))
        })
        .await
        .map_err(|error| ApiError::internal(format!("opening the tenant failed: {error}")))??;
        let app = Arc::new(self.tenant_app(Arc::new(store), limits));
        app.recount().await;
        opened.insert(name.clone(), Arc::clone(&app));
        Ok(app)
    }

    /// Forgets a tenant's opened store, to be removed: gives a weak handle on it, which
    /// holds no more once the requests still using it are done.
    pub(crate) async fn forget(&self, name: &TenantName) -> Option<std::sync::Weak<HistoryStore>> {
        let app = self.opened.lock().await.remove(name)?;
        Some(Arc::downgrade(&app.state.store))
    }

    /// Serves an opened tenant under new limits, its store kept open: the requests
    /// already in go on under the old ones.
    pub(crate) async fn relimit(&self, name: &TenantName, limits: TenantLimits) {
        let mut opened = self.opened.lock().await;
        if let Some(app) = opened.get(name) {
            let app = Arc::new(self.tenant_app(Arc::clone(&app.state.store), limits));
            app.recount().await;
            opened.insert(name.clone(), app);
        }
    }

    fn tenant_app(&self, store: Arc<HistoryStore>, limits: TenantLimits) -> TenantApp {
        let options = Arc::new(tighter(&self.template.options, &limits));
        let state = AppState {
            store,
            options: Arc::clone(&options),
            writing: Arc::new(Mutex::new(())),
            queries: self
                .template
                .queries
                .with_timeout(options.query_timeout, "the tenant's max-query-seconds"),
            live: Arc::new(Mutex::new(crate::ingest::LiveSessions::new(
                options.otlp_keep,
            ))),
            ..self.template.clone()
        };
        TenantApp::new(state, limits, &self.build)
    }
}

/// The server's options with a tenant's limits where they are tighter.
fn tighter(options: &ServeOptions, limits: &TenantLimits) -> ServeOptions {
    let at_most = |server: usize, tenant: Option<u64>| {
        tenant.map_or(server, |tenant| {
            server.min(usize::try_from(tenant).unwrap_or(usize::MAX))
        })
    };
    ServeOptions {
        max_results: at_most(options.max_results, limits.result_rows),
        max_body: at_most(options.max_body, limits.body_bytes),
        query_timeout: limits.query_time.map_or(options.query_timeout, |time| {
            time.min(options.query_timeout)
        }),
        ..options.clone()
    }
}

/// Hands a request the front door let in to the routes of the store it acts in.
pub(crate) async fn dispatch(request: axum::extract::Request) -> axum::response::Response {
    use axum::response::IntoResponse;
    use tower::ServiceExt;
    let Some(app) = request.extensions().get::<Arc<TenantApp>>().cloned() else {
        return ApiError::internal("the request did not pass the front door").into_response();
    };
    match app.router.clone().oneshot(request).await {
        Ok(response) => response,
        Err(never) => match never {},
    }
}
