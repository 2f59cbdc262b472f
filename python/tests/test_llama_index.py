"""IhigraphChatStore against the real llama-index-core: the cases of its own
SimpleChatStore, and messages kept whole."""

import pytest
from llama_index.core.base.llms.types import ChatMessage, MessageRole, TextBlock
from llama_index.core.storage.chat_store.base import BaseChatStore

from conftest import EXAMPLES
from ihigraph.llama_index import IhigraphChatStore


@pytest.fixture
def chats(store):
    return IhigraphChatStore(store=store)


def messages():
    return [
        ChatMessage(role=MessageRole.SYSTEM, content="Be brief."),
        ChatMessage(role=MessageRole.USER, content="Weather?", additional_kwargs={"user": "ana"}),
        ChatMessage(
            role=MessageRole.ASSISTANT,
            content=None,
            additional_kwargs={
                "tool_calls": [
                    {
                        "id": "call-1",
                        "type": "function",
                        "function": {"name": "weather", "arguments": '{"city": "Kyoto"}'},
                    }
                ]
            },
        ),
        ChatMessage(
            role=MessageRole.TOOL, content="rain", additional_kwargs={"tool_call_id": "call-1"}
        ),
        ChatMessage(role=MessageRole.ASSISTANT, blocks=[TextBlock(text="Rain."), TextBlock(text="Take an umbrella.")]),
    ]


def test_is_a_chat_store(chats):
    assert isinstance(chats, BaseChatStore)
    assert chats.class_name() == "IhigraphChatStore"


def test_set_and_get(chats):
    chats.set_messages("k", messages())
    assert chats.get_messages("k") == messages()
    assert chats.get_keys() == ["k"]
    assert chats.get_messages("unknown") == []


def test_add_insert_and_delete(chats):
    chats.add_message("k", ChatMessage(role="user", content="one"))
    chats.add_message("k", ChatMessage(role="assistant", content="three"))
    chats.add_message("k", ChatMessage(role="user", content="two"), idx=1)
    assert [m.content for m in chats.get_messages("k")] == ["one", "two", "three"]
    assert chats.delete_message("k", 1).content == "two"
    assert chats.delete_message("k", 9) is None
    assert chats.delete_last_message("k").content == "three"
    assert [m.content for m in chats.delete_messages("k")] == ["one"]
    assert chats.delete_messages("k") is None and chats.get_keys() == []
    assert chats.delete_last_message("k") is None


async def test_async_methods(chats):
    await chats.aset_messages("k", messages())
    assert await chats.aget_messages("k") == messages()
    await chats.async_add_message("k", ChatMessage(role="user", content="more"))
    assert len(await chats.aget_messages("k")) == 6
    assert await chats.aget_keys() == ["k"]
    await chats.adelete_messages("k")
    assert await chats.aget_keys() == []


def test_tool_calls_reach_the_graph(chats, store):
    chats.set_messages("k", messages())
    [row] = store.query("tool-stats", session="k")
    assert (row["tool"], row["calls"], row["callsWithoutResult"]) == ("weather", 1, 0)
    request = store.context("k", 8000)["request"]["messages"]
    assert request[0]["role"] == "system"


def test_keys_are_the_chat_stores_own(chats, store):
    from langchain_core.messages import AIMessage, HumanMessage

    from ihigraph.langchain import IhigraphChatMessageHistory

    # The store's other sessions are no keys: an ingested history, a LangChain chat.
    store.ingest(EXAMPLES / "trip-planning.json")
    IhigraphChatMessageHistory("langchain-chat", store=store).add_messages([HumanMessage("hi"), AIMessage("hello")])
    assert chats.get_keys() == []
    chats.set_messages("b", messages())
    chats.add_message("a", ChatMessage(role="user", content="one"))
    assert sorted(chats.get_keys()) == ["a", "b"]
    assert len(store.sessions()) == 4
    # The keys are the store's: another chat store over it has the same.
    assert sorted(IhigraphChatStore(store=store).get_keys()) == ["a", "b"]
    chats.delete_messages("b")
    assert chats.get_keys() == ["a"]
