"""LlamaIndex's chat store on ihigraph.

:class:`IhigraphChatStore` is a ``BaseChatStore``: each key is a session. A message is
kept whole (``ChatMessage.model_dump``: role, blocks, ``additional_kwargs``) inside the
LangChain-shaped message the session is made of, so it comes back equal, while the graph
sees its role, text and tool calls (OpenAI-style ``additional_kwargs["tool_calls"]``
become calls with their ids; a tool message's ``tool_call_id`` answers one).

>>> from llama_index.core.llms import ChatMessage
>>> from ihigraph import Store
>>> from ihigraph.llama_index import IhigraphChatStore
>>> chats = IhigraphChatStore(store=Store())
>>> chats.add_message("user-1", ChatMessage(role="user", content="hello"))
>>> chats.add_message("user-1", ChatMessage(role="assistant", content="hi!"))
>>> [m.content for m in chats.get_messages("user-1")]
['hello', 'hi!']
"""

import json
from typing import Any, Dict, List, Optional

from llama_index.core.base.llms.types import ChatMessage
from llama_index.core.bridge.pydantic import ConfigDict, Field
from llama_index.core.storage.chat_store.base import BaseChatStore

from ihigraph._ihigraph import Store

_KINDS = {
    "user": "human",
    "assistant": "ai",
    "model": "ai",
    "chatbot": "ai",
    "system": "system",
    "developer": "system",
    "tool": "tool",
    "function": "tool",
}


def _calls(message: ChatMessage) -> List[Dict[str, Any]]:
    calls = []
    for call in message.additional_kwargs.get("tool_calls") or []:
        if not isinstance(call, dict):
            call = call.model_dump() if hasattr(call, "model_dump") else dict(call)
        function = call.get("function") or {}
        arguments = function.get("arguments", call.get("args", {}))
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments)
            except ValueError:
                arguments = {"arguments": arguments}
        calls.append(
            {
                "name": function.get("name", call.get("name", "")),
                "args": arguments,
                "id": call.get("id"),
                "type": "tool_call",
            }
        )
    return calls


def to_langchain_dict(message: ChatMessage) -> Dict[str, Any]:
    """The LangChain ``messages_to_dict`` form of a LlamaIndex message, holding it whole."""
    role = str(getattr(message.role, "value", message.role))
    kind = _KINDS.get(role, "chat")
    whole = message.model_dump(mode="json")
    data: Dict[str, Any] = {
        "content": message.content or "",
        "additional_kwargs": {},
        "llama_index": whole,
    }
    # OpenAI-style calls sit where LangChain keeps them for OpenAI models, beside
    # `tool_calls` (the payload layer counts them once there), not a second time inside
    # the whole message.
    calls = whole["additional_kwargs"].pop("tool_calls", None)
    if calls is not None:
        data["additional_kwargs"]["tool_calls"] = calls
    if kind == "ai":
        data["tool_calls"] = _calls(message)
    elif kind == "tool":
        data["tool_call_id"] = str(message.additional_kwargs.get("tool_call_id", ""))
    elif kind == "chat":
        data["role"] = role
    return {"type": kind, "data": data}


def from_langchain_dict(message: Dict[str, Any]) -> ChatMessage:
    """The LlamaIndex message a stored one holds (or one made from its text)."""
    data = message.get("data", {})
    if "llama_index" in data:
        whole = data["llama_index"]
        calls = data.get("additional_kwargs", {}).get("tool_calls")
        if calls is not None:
            whole["additional_kwargs"]["tool_calls"] = calls
        return ChatMessage.model_validate(whole)
    roles = {"human": "user", "ai": "assistant", "system": "system", "tool": "tool"}
    role = data.get("role") or roles.get(message.get("type", ""), "user")
    return ChatMessage(role=role, content=data.get("content", ""))


class IhigraphChatStore(BaseChatStore):
    """Chat histories by key, each key a session of an ihigraph store.

    Give a :class:`ihigraph.Store`, or a ``path`` to open one (``None``: in memory).
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)
    store: Any = Field(default=None, exclude=True)

    def __init__(self, store: Optional[Store] = None, path: Optional[str] = None, **kwargs: Any) -> None:
        if store is not None and path is not None:
            raise ValueError("give a store or a path, not both")
        super().__init__(store=store if store is not None else Store(path), **kwargs)

    @classmethod
    def class_name(cls) -> str:
        return "IhigraphChatStore"

    def set_messages(self, key: str, messages: List[ChatMessage]) -> None:
        """Replaces the messages of ``key`` (none: deletes the session)."""
        self.store.set_chat_messages(key, [to_langchain_dict(m) for m in messages])

    def get_messages(self, key: str) -> List[ChatMessage]:
        """The messages of ``key``, oldest first (none for an unknown key)."""
        return [from_langchain_dict(m) for m in self.store.chat_messages(key)]

    def add_message(self, key: str, message: ChatMessage, idx: Optional[int] = None) -> None:
        """Appends a message, or inserts it at ``idx``."""
        if idx is None:
            self.store.add_chat_messages(key, [to_langchain_dict(message)])
            return
        messages = self.get_messages(key)
        messages.insert(idx, message)
        self.set_messages(key, messages)

    def delete_messages(self, key: str) -> Optional[List[ChatMessage]]:
        """Deletes the session of ``key``; gives its messages (``None`` if unknown)."""
        messages = self.get_messages(key)
        if not messages:
            return None
        self.store.set_chat_messages(key, [])
        return messages

    def delete_message(self, key: str, idx: int) -> Optional[ChatMessage]:
        """Deletes the message at ``idx``; gives it (``None`` if there is none)."""
        messages = self.get_messages(key)
        if not 0 <= idx < len(messages):
            return None
        removed = messages.pop(idx)
        self.set_messages(key, messages)
        return removed

    def delete_last_message(self, key: str) -> Optional[ChatMessage]:
        """Deletes the last message; gives it (``None`` if there is none)."""
        messages = self.get_messages(key)
        if not messages:
            return None
        return self.delete_message(key, len(messages) - 1)

    def get_keys(self) -> List[str]:
        """The keys holding messages of a LlamaIndex chat store, as ``SimpleChatStore``
        gives the keys of its dict: not the store's other sessions (ingested histories,
        LangChain chats), whose messages are not LlamaIndex's. A key whose messages are
        all deleted is gone (``set_messages(key, [])`` deletes its session)."""
        return self.store.chat_sessions(holding="llama_index")
