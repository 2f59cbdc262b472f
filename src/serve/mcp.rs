//! The Model Context Protocol: tools a model calls to read the histories, served over
//! Streamable HTTP at `/mcp` and over stdio by [`serve_mcp_stdio`], with the official
//! SDK (rmcp). Each tool answers JSON rows; a mistake in the call comes back as a tool
//! error the model can read and correct.

use super::ApiError;
use super::QueryLimits;
use super::error::chain;
use super::memory::{MemoryRequest, context_json, context_options, remembered_json};
use super::rows::json_rows;
use super::search::{SearchArguments, search_json};
use crate::query::{
    Arguments, GraphFormat, RECENT_TURNS, ResultsFormat, ResultsShape, SEARCH, SESSIONS,
    TOOL_USAGE, write_results_shaped,
};
use crate::store::{HistoryStore, QueryOptions, StoreError};
use oxigraph::sparql::{CancellationToken, QueryResults};
use rmcp::RoleServer;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, Implementation, ServerCapabilities, ServerConfig};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, ServerHandler, ServiceExt, tool, tool_handler, tool_router};
use serde::Deserialize;
use serde_json::{Value, json};
use std::io;
use std::sync::{Arc, Mutex};

/// The tools, over one store.
#[derive(Clone)]
pub struct McpTools {
    store: Arc<HistoryStore>,
    max_rows: usize,
    /// What a query may take (time, memory, a place among the running ones).
    queries: QueryLimits,
    /// Writes go one at a time, with the HTTP server's.
    writing: Arc<Mutex<()>>,
    /// Over stdio, whether the tools that write may (`ihigraph mcp --allow-write`).
    stdio_writes: bool,
    tool_router: ToolRouter<Self>,
}

/// `get_context`'s arguments.
#[derive(Debug, Deserialize, rmcp::schemars::JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
pub struct GetContext {
    /// The session's id (SessionID).
    pub session: String,
    /// Tokens the request may take: system prompt, messages and their framing.
    pub budget: u64,
    /// The request shape: openai-chat (default), openai-responses, anthropic or gemini.
    pub format: Option<String>,
    /// o200k_base or cl100k_base (default: the format's).
    pub tokenizer: Option<String>,
    /// keep (default) or drop the session's system prompt.
    pub system: Option<String>,
    /// Only the turns up to this TurnIndex.
    pub until: Option<u64>,
}

/// `remember`'s arguments: an argument it does not know is refused before anything is
/// written (serde cannot refuse unknown members of a flattened struct, so the item's
/// members are listed here again).
#[derive(Debug, Deserialize, rmcp::schemars::JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
#[serde(deny_unknown_fields)]
pub struct RememberArguments {
    /// The session's id (SessionID).
    pub session: String,
    /// The TurnIndex of the turn it is derived from.
    pub turn: u64,
    /// fact, decision or lesson.
    pub kind: String,
    /// What to remember, in one or two sentences.
    pub text: String,
    /// From when it holds (RFC 3339, or a date).
    pub valid_from: Option<String>,
    /// Until when it holds, exclusive (RFC 3339, or a date).
    pub valid_until: Option<String>,
}

/// `list_sessions`' arguments.
#[derive(Debug, Deserialize, rmcp::schemars::JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
pub struct ListSessions {
    /// Only sessions of this M-Instance (MInstanceID).
    pub m_instance: Option<String>,
    /// Only sessions of this U-Environment (UEnvironmentID).
    pub u_environment: Option<String>,
    /// How many sessions to give, latest start first (1 to 1000; 20 when not given).
    pub limit: Option<u32>,
    /// How many sessions to skip first, to page through a long list.
    pub offset: Option<u32>,
}

/// `recent_turns`' arguments.
#[derive(Debug, Deserialize, rmcp::schemars::JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
pub struct RecentTurns {
    /// The session's id (SessionID), as list_sessions gives it.
    pub session: String,
    /// How many turns, newest first (10 when not given).
    pub n: Option<u32>,
}

/// `tool_usage`' arguments.
#[derive(Debug, Deserialize, rmcp::schemars::JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
pub struct ToolUsage {
    /// Only calls of this tool (its name as the model called it).
    pub tool: Option<String>,
    /// Only calls in this session (SessionID).
    pub session: Option<String>,
    /// Only calls at or after this time (RFC 3339, e.g. 2026-03-14T08:00:00Z).
    pub since: Option<String>,
    /// Only calls at or before this time (RFC 3339).
    pub until: Option<String>,
}

/// `search`' arguments.
#[derive(Debug, Deserialize, rmcp::schemars::JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
pub struct Search {
    /// The text to look for in prompts and answers, case-insensitively.
    pub text: String,
    /// Only turns of this session (SessionID).
    pub session: Option<String>,
}

/// `search_sessions`' arguments.
#[derive(Debug, Deserialize, rmcp::schemars::JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
pub struct SearchSessions {
    /// The words to find, all required: `OR` between two words takes either, `-word`
    /// leaves texts with it out, "a phrase" in double quotes finds the words side by side,
    /// `word*` finds words that begin so. Word forms are matched in English, French,
    /// German and Spanish (deploy finds deployments); Chinese and Japanese by their
    /// characters.
    pub query: String,
    /// Only this session (SessionID).
    pub session: Option<String>,
    /// Only turns of this role: H-User, A-User or BKN.
    pub role: Option<String>,
    /// Only texts at or after this time (RFC 3339, or a date).
    pub since: Option<String>,
    /// Only texts before this time (RFC 3339, or a date).
    pub until: Option<String>,
    /// Only these kinds of text: prompt, answer, call (a tool call's name and
    /// arguments), result (a tool result), memory (a memory item).
    pub kinds: Option<Vec<String>>,
    /// The most hits to give (1 to 1000, default 10).
    pub limit: Option<u16>,
}

/// `sparql_query`'s arguments.
#[derive(Debug, Deserialize, rmcp::schemars::JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
pub struct SparqlQuery {
    /// A SPARQL 1.1 SELECT, ASK, CONSTRUCT or DESCRIBE query. Its default graph is the
    /// union of the session graphs. Prefixes: ch: <https://jido.ai/ontology/conversation-history#>,
    /// ihi: <https://w3id.org/ihigraph/ontology#>. Updates are refused.
    pub query: String,
    /// Run it over the sessions with what the ontologies entail about them (OWL 2 RL:
    /// ihi:usedTool from a session to the tools its turns invoked, prov:wasAssociatedWith,
    /// ihi:HumanTurn...), on a store that reasons. Default false.
    #[serde(default)]
    pub inferred: bool,
}

#[tool_router]
impl McpTools {
    /// The tools over `store`: answers of at most `max_rows` rows, queries stopped after
    /// `query_timeout`; `writing` is the lock the server's writes share.
    pub fn new(
        store: Arc<HistoryStore>,
        max_rows: usize,
        queries: QueryLimits,
        writing: Arc<Mutex<()>>,
    ) -> Self {
        Self {
            store,
            max_rows,
            queries,
            writing,
            stdio_writes: false,
            tool_router: Self::tool_router(),
        }
    }

    /// Over stdio: whether the tools that write may.
    #[must_use]
    pub fn with_stdio_writes(self, stdio_writes: bool) -> Self {
        Self {
            stdio_writes,
            ..self
        }
    }

    #[tool(
        description = "Context for your next model call: the newest turns of a session that fit a token budget, as the request body of a provider's API (openai-chat: {messages}; openai-responses: {input}; anthropic: {system, messages}; gemini: {systemInstruction, contents}). Every tool call comes with its result. Gives the request, its token count, the turns it holds and what was left out."
    )]
    async fn get_context(
        &self,
        Parameters(arguments): Parameters<GetContext>,
    ) -> Result<CallToolResult, ErrorData> {
        let options = match context_options(
            Some(&arguments.budget.to_string()),
            arguments.format.as_deref(),
            arguments.tokenizer.as_deref(),
            arguments.system.as_deref(),
            arguments.until.map(|until| until.to_string()).as_deref(),
        ) {
            Ok(options) => options,
            Err(error) => return Ok(mistake(error.message)),
        };
        let session = arguments.session;
        let answer = self
            .blocking(move |store, _| context_json(store, &session, &options))
            .await;
        Ok(match answer {
            Ok(value) => CallToolResult::structured(value),
            Err(error) => mistake(error.message),
        })
    }

    #[tool(
        description = "Remember something from a session for the long term: a fact, a decision or a lesson, derived from one turn (give its TurnIndex). The item keeps where it came from (the turn, the session, when, who said it) and the time it holds for. Remembering the same kind and text again from another turn adds that turn as a source."
    )]
    async fn remember(
        &self,
        Parameters(arguments): Parameters<RememberArguments>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        if let Some(parts) = context.extensions.get::<axum::http::request::Parts>() {
            let allowed = super::auth::caller_of(&parts.extensions)
                .and_then(|caller| super::auth::may_write(&caller));
            if let Err(error) = allowed {
                return Ok(mistake(error.message));
            }
        } else if !self.stdio_writes {
            return Ok(mistake(
                "remember writes to the store, and this server was started without --allow-write: \
                 ask the user to start it with `ihigraph mcp --allow-write`",
            ));
        }
        let RememberArguments {
            session,
            turn,
            kind,
            text,
            valid_from,
            valid_until,
        } = arguments;
        let item = MemoryRequest {
            turn,
            kind,
            text,
            valid_from,
            valid_until,
        };
        let request = match item.to_remember(session) {
            Ok(request) => request,
            Err(error) => return Ok(mistake(error.message)),
        };
        let writing = Arc::clone(&self.writing);
        let answer = self
            .blocking(move |store, _| {
                let _turn = writing
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                remembered_json(store, &request).map(|(_, value)| value)
            })
            .await;
        Ok(match answer {
            Ok(value) => CallToolResult::structured(value),
            Err(error) => mistake(error.message),
        })
    }

    #[tool(
        description = "List the stored agent sessions (conversation histories), latest start first: session id, M-Instance, U-Environment, start time, turn count, last turn time. Use it to find a session id for the other tools."
    )]
    async fn list_sessions(
        &self,
        Parameters(arguments): Parameters<ListSessions>,
    ) -> Result<CallToolResult, ErrorData> {
        let limit = arguments.limit.unwrap_or(20);
        if !(1..=1000).contains(&limit) {
            return Ok(mistake(format!("limit {limit}: give 1 to 1000")));
        }
        let offset = arguments.offset.unwrap_or(0) as usize;
        let mut bound = Arguments::new();
        if let Some(value) = arguments.m_instance {
            bound = bound.raw("m-instance", value);
        }
        if let Some(value) = arguments.u_environment {
            bound = bound.raw("u-environment", value);
        }
        let answer = self
            .rows(usize::MAX, move |store, cancel| {
                store.run_with(&SESSIONS, &bound, Some(cancel))
            })
            .await;
        Ok(match answer {
            Ok(rows) => {
                let total = rows.len();
                let page: Vec<Value> = rows.into_iter().skip(offset).take(limit as usize).collect();
                CallToolResult::structured(
                    json!({"sessions": page, "total": total, "offset": offset}),
                )
            }
            Err(error) => mistake(error.message),
        })
    }

    #[tool(
        description = "The newest turns of one session, newest first: turn index, role (H-User, A-User, BKN), time, prompt text and answer text."
    )]
    async fn recent_turns(
        &self,
        Parameters(arguments): Parameters<RecentTurns>,
    ) -> Result<CallToolResult, ErrorData> {
        let bound = Arguments::new()
            .text("session", arguments.session)
            .count("n", u64::from(arguments.n.unwrap_or(10)));
        Ok(self.canned_rows(&RECENT_TURNS, bound, "turns").await)
    }

    #[tool(
        description = "Tool invocations recorded in the sessions, newest first: session, turn, tool name, parameters, result, whether it failed, time. Filter by tool, session and time range."
    )]
    async fn tool_usage(
        &self,
        Parameters(arguments): Parameters<ToolUsage>,
    ) -> Result<CallToolResult, ErrorData> {
        let mut bound = Arguments::new();
        for (name, value) in [
            ("tool", arguments.tool),
            ("session", arguments.session),
            ("since", arguments.since),
            ("until", arguments.until),
        ] {
            if let Some(value) = value {
                bound = bound.raw(name, value);
            }
        }
        Ok(self.canned_rows(&TOOL_USAGE, bound, "invocations").await)
    }

    #[tool(
        description = "Find turns whose prompt or answer text contains a text (case-insensitive), across all sessions or in one: session, turn index, role, prompt text, answer text."
    )]
    async fn search(
        &self,
        Parameters(arguments): Parameters<Search>,
    ) -> Result<CallToolResult, ErrorData> {
        let mut bound = Arguments::new().text("text", arguments.text);
        if let Some(session) = arguments.session {
            bound = bound.text("session", session);
        }
        Ok(self.canned_rows(&SEARCH, bound, "turns").await)
    }

    #[tool(
        description = "Full-text search over every session, best match first (BM25): prompts, answers, tool calls, tool results and memory items that hold the words. Each hit gives the session, the turn (IRI and index), role, time, kind, and a snippet of the text with the byte ranges of the matched words. Use it to find where something was discussed; then recent_turns or sparql_query for the turns around it."
    )]
    async fn search_sessions(
        &self,
        Parameters(arguments): Parameters<SearchSessions>,
    ) -> Result<CallToolResult, ErrorData> {
        let kinds = arguments.kinds.map(|kinds| kinds.join(","));
        let request = SearchArguments {
            query: Some(&arguments.query),
            session: arguments.session.as_deref(),
            role: arguments.role.as_deref(),
            since: arguments.since.as_deref(),
            until: arguments.until.as_deref(),
            kind: kinds.as_deref(),
            limit: arguments.limit.map_or(10, usize::from),
        }
        .request();
        let request = match request {
            Ok(request) => request,
            Err(error) => return Ok(mistake(error.message)),
        };
        let answer = self
            .blocking(move |store, _| search_json(store, &request))
            .await;
        Ok(match answer {
            Ok(hits) => CallToolResult::structured(hits),
            Err(error) => mistake(error.message),
        })
    }

    #[tool(
        description = "Run a read-only SPARQL 1.1 query over the conversation-history graph (one named graph per session; the default graph is their union). SELECT gives rows, ASK a boolean, CONSTRUCT and DESCRIBE N-Triples. Classes: ch:Conversation, ch:ConversationTurn, ch:Prompt, ch:Answer, ch:ToolInvocation; properties such as ihi:sessionId, ch:partOfConversation, ch:turnIndex, ch:promptText, ch:answerText."
    )]
    async fn sparql_query(
        &self,
        Parameters(arguments): Parameters<SparqlQuery>,
    ) -> Result<CallToolResult, ErrorData> {
        let max_rows = self.max_rows;
        let answer = self
            .blocking(move |store, cancel| {
                let options = QueryOptions {
                    cancel: Some(cancel.clone()),
                    ..QueryOptions::default()
                };
                let results = if arguments.inferred {
                    store.query_inferred(&arguments.query, &options)
                } else {
                    store.query_with(&arguments.query, &options)
                };
                let results = results.map_err(|error| match error {
                    StoreError::UpdateNotAllowed => ApiError::bad_request(
                        "sparql_query is read-only: this is an update, and updates are refused",
                    ),
                    other => other.into(),
                })?;
                match results {
                    QueryResults::Boolean(value) => Ok(json!({ "boolean": value })),
                    QueryResults::Solutions(_) => {
                        let rows = json_rows(results, max_rows)?;
                        Ok(json!({"rows": rows, "count": rows.len()}))
                    }
                    QueryResults::Graph(_) => {
                        let shape = ResultsShape {
                            results: ResultsFormat::Json,
                            graph: GraphFormat::NTriples,
                            max_rows: Some(max_rows),
                        };
                        let mut text = Vec::new();
                        let count =
                            write_results_shaped(results, shape, store.scheme().base(), &mut text)?;
                        Ok(json!({"ntriples": String::from_utf8_lossy(&text), "count": count}))
                    }
                }
            })
            .await;
        Ok(match answer {
            Ok(value) => CallToolResult::structured(value),
            Err(error) => mistake(error.message),
        })
    }
}

impl McpTools {
    /// A canned query's rows under `key`, or the mistake in its arguments.
    async fn canned_rows(
        &self,
        query: &'static crate::query::CannedQuery,
        arguments: Arguments,
        key: &str,
    ) -> CallToolResult {
        let answer = self
            .rows(self.max_rows, move |store, cancel| {
                store.run_with(query, &arguments, Some(cancel))
            })
            .await;
        match answer {
            Ok(rows) => CallToolResult::structured(json!({ key: rows, "count": rows.len() })),
            Err(error) => mistake(error.message),
        }
    }

    async fn rows(
        &self,
        max_rows: usize,
        query: impl FnOnce(
            &HistoryStore,
            &CancellationToken,
        ) -> Result<QueryResults<'static>, StoreError>
        + Send
        + 'static,
    ) -> Result<Vec<Value>, ApiError> {
        self.blocking(move |store, cancel| json_rows(query(store, cancel)?, max_rows))
            .await
    }

    /// Runs store work on a query thread of its own, under the query limits.
    async fn blocking<T: Send + 'static>(
        &self,
        work: impl FnOnce(&HistoryStore, &CancellationToken) -> Result<T, ApiError> + Send + 'static,
    ) -> Result<T, ApiError> {
        self.queries.run(Arc::clone(&self.store), work).await
    }
}

/// A tool error the model reads: what was wrong with the call.
fn mistake(message: impl Into<String>) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(message.into())])
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for McpTools {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("ihigraph", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "Conversation histories of AI agents (MPAI PGM-IHI sessions) as a knowledge graph. \
                 Start with list_sessions to find session ids; recent_turns and search read turns; \
                 tool_usage lists tool calls; get_context gives a session's turns as a request body \
                 within a token budget; remember keeps a fact, decision or lesson from a turn; \
                 sparql_query answers anything else.",
            )
    }
}

/// Serves the tools over standard input and output until the client closes them.
///
/// # Errors
///
/// When the stdio transport cannot start or fails.
pub async fn serve_mcp_stdio(tools: McpTools) -> io::Result<()> {
    let running = tools
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|error| io::Error::other(chain(&error)))?;
    running
        .waiting()
        .await
        .map_err(|error| io::Error::other(error.to_string()))?;
    Ok(())
}
