"""ihigraph: AI-agent conversation histories as an RDF knowledge graph, in Python.

The same Rust library as the ``ihigraph`` command, built as one module with PyO3: a
:class:`Store` (on disk, in memory, or on a SPARQL 1.1 server) takes PGM-IHI documents
and histories in other formats, answers canned queries and SPARQL, builds the context of
a session's next model call, keeps long-term memory with its provenance, reports and
verifies. Long calls release the GIL.

Drop-ins for the memory interfaces of agent frameworks live in submodules:
:mod:`ihigraph.langchain` (``BaseChatMessageHistory``) and :mod:`ihigraph.llama_index`
(``BaseChatStore``).

>>> import ihigraph
>>> store = ihigraph.Store()
>>> chat = [{"role": "user", "content": "2+2?"}, {"role": "assistant", "content": "4"}]
>>> store.ingest(chat, from_="openai-chat", session_id="sum")
IngestReport(sessions=1, replaced=0, unchanged=0, turns=1, quads=..., refused=0)
>>> store.sessions()
['sum']
>>> store.context("sum", 8000)["request"]["messages"]
[{'role': 'user', 'content': '2+2?'}, {'role': 'assistant', 'content': '4'}]
"""

from ihigraph._ihigraph import (
    ConversionError,
    Diagnostic,
    IhigraphError,
    IngestReport,
    NotFoundError,
    QueryError,
    Store,
    StoreError,
    ValidationError,
    __version__,
    convert,
    validate,
)

__all__ = [
    "ConversionError",
    "Diagnostic",
    "IhigraphError",
    "IngestReport",
    "NotFoundError",
    "QueryError",
    "Store",
    "StoreError",
    "ValidationError",
    "__version__",
    "convert",
    "validate",
]
