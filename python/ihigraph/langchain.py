"""LangChain's chat message history on ihigraph.

:class:`IhigraphChatMessageHistory` is a ``BaseChatMessageHistory``: the messages of one
session go in and come back equal (content, tool calls with their ids, tool messages,
names, ``additional_kwargs``, ``response_metadata``, ids). The session is stored as
``ihigraph ingest --from langchain`` stores the same messages (each AI message one turn),
so SPARQL, ``context`` and the report read it like any other.

>>> from langchain_core.messages import AIMessage, HumanMessage
>>> from ihigraph import Store
>>> from ihigraph.langchain import IhigraphChatMessageHistory
>>> history = IhigraphChatMessageHistory("chat-1", store=Store())
>>> history.add_messages([HumanMessage("2+2?"), AIMessage("4")])
>>> [m.content for m in history.messages]
['2+2?', '4']
>>> history.store.sessions()
['chat-1']
"""

from typing import List, Optional, Sequence, Union
import os

from langchain_core.chat_history import BaseChatMessageHistory
from langchain_core.messages import BaseMessage, messages_from_dict, messages_to_dict

from ihigraph._ihigraph import Store


class IhigraphChatMessageHistory(BaseChatMessageHistory):
    """The messages of session ``session_id`` in an ihigraph store.

    Give a :class:`ihigraph.Store` (shared by many histories), or a ``path`` to open one
    (``None``: in memory). The async methods run the sync ones in an executor; the store
    releases the GIL, so they run side by side with the event loop.
    """

    def __init__(
        self,
        session_id: str,
        store: Optional[Store] = None,
        path: Union[str, "os.PathLike[str]", None] = None,
    ) -> None:
        if store is not None and path is not None:
            raise ValueError("give a store or a path, not both")
        self.session_id = session_id
        self.store = store if store is not None else Store(path)

    @property
    def messages(self) -> List[BaseMessage]:  # type: ignore[override]
        """The session's messages, oldest first."""
        return messages_from_dict(self.store.chat_messages(self.session_id))

    def add_messages(self, messages: Sequence[BaseMessage]) -> None:
        """Appends messages in one atomic write: the store is given only the quads that
        change (the new turns, and the last turn when they complete it), and the history
        is not read back from the store when this store wrote it last."""
        if messages:
            self.store.add_chat_messages(self.session_id, messages_to_dict(list(messages)))

    def clear(self) -> None:
        """Deletes the session and the memory made from it alone."""
        self.store.set_chat_messages(self.session_id, [])
