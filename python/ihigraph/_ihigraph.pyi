"""Type stubs of the compiled module ``ihigraph._ihigraph`` (PyO3)."""

import os
from types import TracebackType
from typing import Any, Dict, List, Literal, Optional, Sequence, Tuple, Type, TypedDict, Union

__version__: str

PathLike = Union[str, "os.PathLike[str]"]
Source = Union[PathLike, Dict[str, Any], List[Any]]
Sources = Union[Source, Sequence[Source]]
Row = Dict[str, Any]
ContextFormat = Literal["openai-chat", "openai-responses", "anthropic", "gemini"]
ExportFormat = Literal["trig", "nquads", "turtle", "jsonld", "pgm-ihi"]
SearchKind = Literal["prompt", "answer", "call", "result", "memory"]

class SearchHit(TypedDict):
    """One text that matched a search (``Store.search``): its BM25 ``score``; the
    ``session`` (empty for a memory item), the memory ``item``'s IRI, the ``turn``'s IRI
    and ``turn_index``, ``role`` and ``time``; its ``kind`` and ``language``; the
    ``snippet`` around the match, with the matched words as ``(start, end)`` character
    offsets into it (``highlights``)."""

    score: float
    session: str
    item: Optional[str]
    turn: Optional[str]
    turn_index: Optional[int]
    role: Optional[str]
    time: Optional[str]
    kind: SearchKind
    language: str
    snippet: str
    highlights: List[Tuple[int, int]]

class IhigraphError(Exception):
    message: str
    file: Optional[str]
    line: Optional[int]
    column: Optional[int]
    pointer: Optional[str]
    diagnostics: List["Diagnostic"]

class ValidationError(IhigraphError): ...
class ConversionError(IhigraphError): ...
class StoreError(IhigraphError): ...
class NotFoundError(StoreError): ...
class QueryError(IhigraphError): ...

class Diagnostic:
    """One thing a check found: severity, rule, message, and its place."""

    @property
    def severity(self) -> Literal["error", "warning"]: ...
    @property
    def rule(self) -> str: ...
    @property
    def message(self) -> str: ...
    @property
    def file(self) -> Optional[str]: ...
    @property
    def line(self) -> Optional[int]: ...
    @property
    def column(self) -> Optional[int]: ...
    @property
    def pointer(self) -> Optional[str]: ...
    @property
    def is_error(self) -> bool: ...

class IngestReport:
    """What an ingest did."""

    @property
    def sessions(self) -> int: ...
    @property
    def replaced(self) -> int: ...
    @property
    def unchanged(self) -> int: ...
    @property
    def turns(self) -> int: ...
    @property
    def quads(self) -> int: ...
    @property
    def diagnostics(self) -> List[Diagnostic]: ...
    @property
    def refused(self) -> List[Diagnostic]: ...

def validate(sources: Sources, *, lenient: bool = False) -> List[Diagnostic]: ...
def convert(
    sources: Sources,
    *,
    from_: str = "auto",
    session_id: Optional[str] = None,
    start_time: Optional[str] = None,
    timezone: Optional[str] = None,
) -> List[Dict[str, Any]]: ...

class Store:
    """A store of interaction histories: on disk, in memory, or on a SPARQL server."""

    def __init__(
        self,
        path: Optional[PathLike] = None,
        *,
        endpoint: Optional[str] = None,
        update_endpoint: Optional[str] = None,
        graph_store: Optional[str] = None,
        user: Optional[str] = None,
        password: Optional[str] = None,
        token: Optional[str] = None,
        timeout: float = 30.0,
        base: Optional[str] = None,
        session_template: Optional[str] = None,
        reasoning: Optional[bool] = None,
        tenant: Optional[str] = None,
    ) -> None: ...
    def close(self) -> None:
        """Closes the store: waits for the calls under way, then for the full-text index's
        last write and the merges of its segments that writes began, and lets the store's
        files go. Every call after it raises ``StoreError``; closing again does nothing."""
        ...
    def __enter__(self) -> "Store":
        """``with Store(...) as store:``: the store, closed when the block ends."""
        ...
    def __exit__(
        self,
        kind: Optional[Type[BaseException]],
        value: Optional[BaseException],
        traceback: Optional[TracebackType],
    ) -> bool:
        """Closes the store (see ``close``); an exception of the block goes on."""
        ...
    @property
    def reasoning(self) -> bool:
        """Whether the store reasons: what the ontologies entail about each session kept
        beside it, for queries run with ``inferred=True``."""
        ...
    def tenants(self) -> List[str]:
        """The names of this store's tenants (each opened with ``Store(path, tenant=NAME)``)."""
        ...
    def add_tenant(self, name: str) -> None:
        """Adds a tenant: a store of its own beside this one (on disk), opened with
        ``Store(path, tenant=NAME)``."""
        ...
    def __len__(self) -> int: ...
    def __contains__(self, session: str) -> bool: ...
    def ingest(
        self,
        sources: Sources,
        *,
        from_: str = "pgm-ihi",
        lenient: bool = False,
        strict: bool = True,
        session_id: Optional[str] = None,
    ) -> IngestReport: ...
    def sessions(self) -> List[str]: ...
    def query(self, name: str, *, terms: bool = False, inferred: bool = False, **params: Any) -> List[Row]: ...
    def sparql(self, query: str, *, terms: bool = False, inferred: bool = False) -> Union[List[Row], bool, List[Tuple[Any, Any, Any]]]: ...
    def update(self, update: str) -> None: ...
    def history(self, session: str) -> Dict[str, Any]: ...
    def export(self, format: ExportFormat = "trig", *, session: Optional[str] = None) -> Union[str, List[Dict[str, Any]]]: ...
    def append(
        self,
        session: str,
        turn: Dict[str, Any],
        *,
        create: Optional[Dict[str, Any]] = None,
        lenient: bool = False,
    ) -> Dict[str, Any]: ...
    def delete(
        self, session: str, *, dry_run: bool = False, with_branches: bool = False
    ) -> Union[Dict[str, Any], List[Dict[str, Any]]]: ...
    def retention(self) -> Optional[str]: ...
    def set_retention(self, period: Optional[str]) -> None: ...
    def prune(self, *, dry_run: bool = False, now: Optional[str] = None) -> Dict[str, Any]: ...
    def erase(self, where: str, *, dry_run: bool = False) -> Dict[str, Any]: ...
    def context(
        self,
        session: str,
        budget: int = 8000,
        *,
        format: ContextFormat = "openai-chat",
        tokenizer: Optional[Literal["o200k_base", "cl100k_base"]] = None,
        system: Literal["keep", "drop"] = "keep",
        until: Optional[int] = None,
    ) -> Dict[str, Any]: ...
    def remember(
        self,
        session: str,
        turn: int,
        text: str,
        *,
        kind: Literal["fact", "decision", "lesson"] = "fact",
        valid_from: Optional[str] = None,
        valid_until: Optional[str] = None,
    ) -> str: ...
    def memory(
        self,
        *,
        session: Optional[str] = None,
        kind: Optional[Literal["fact", "decision", "lesson"]] = None,
        at: Optional[str] = None,
    ) -> List[Row]: ...
    def search(
        self,
        query: str,
        *,
        session: Optional[str] = None,
        role: Optional[Literal["H-User", "A-User", "BKN"]] = None,
        since: Optional[str] = None,
        until: Optional[str] = None,
        kind: Union[SearchKind, Sequence[SearchKind], None] = None,
        limit: int = 10,
    ) -> List[SearchHit]:
        """Full-text search of the store's index (BM25), best first.

        ``query``: words (all required), ``"a phrase"``, ``prefix*``, ``OR``, ``-word``.
        Filters: ``session``, ``role``, ``since`` and ``until`` (RFC 3339 or a date),
        ``kind`` (one or several); ``limit`` at most 1,000. Raises ``QueryError`` for a
        query the index cannot read, ``StoreError`` on a store without an index (one on
        a SPARQL server).

        >>> import ihigraph
        >>> store = ihigraph.Store()
        >>> chat = [{"role": "user", "content": "Why does the deploy time out?"},
        ...         {"role": "assistant", "content": "The database migration is slow."}]
        >>> _ = store.ingest(chat, from_="openai-chat", session_id="ops")
        >>> [hit] = store.search("migration")
        >>> hit["session"], hit["turn_index"], hit["kind"]
        ('ops', 0, 'answer')
        """
        ...
    def forget(self, item: str) -> str: ...
    def report(
        self,
        path: Optional[PathLike] = None,
        *,
        since: Optional[str] = None,
        until: Optional[str] = None,
        sessions: Sequence[str] = (),
    ) -> str: ...
    def hash(self, sessions: Optional[Sequence[str]] = None, *, record: bool = False) -> List[Tuple[str, str]]: ...
    def verify(self, sessions: Sequence[str] = ()) -> List[Tuple[str, str]]: ...
    def put_item(
        self,
        namespace: Sequence[str],
        key: str,
        value: Dict[str, Any],
        *,
        session: Optional[str] = None,
        turn: Optional[int] = None,
        ttl: Optional[float] = None,
    ) -> None: ...
    def refresh_item(self, namespace: Sequence[str], key: str) -> bool: ...
    def delete_item(self, namespace: Sequence[str], key: str) -> bool: ...
    def items(self, prefix: Sequence[str] = (), *, at: Optional[str] = None) -> List[Dict[str, Any]]: ...
    def chat_messages(self, session: str) -> List[Dict[str, Any]]: ...
    def chat_sessions(self, *, holding: Optional[str] = None) -> List[str]: ...
    def set_chat_messages(self, session: str, messages: List[Dict[str, Any]]) -> None: ...
    def add_chat_messages(self, session: str, messages: List[Dict[str, Any]]) -> None: ...
