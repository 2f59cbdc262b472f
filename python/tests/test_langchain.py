"""IhigraphChatMessageHistory against the real langchain-core: messages come back equal,
sync and async, and the session is a session like any other (SPARQL, context, report).

langchain-tests ships no standard tests for chat message histories (only for models,
tools, retrievers, vector stores, caches and key-value stores), so the cases of its
sibling interfaces are written out here: round trips, appends, clear, isolation of
sessions, async methods."""

import pytest
from langchain_core.chat_history import BaseChatMessageHistory
from langchain_core.messages import (
    AIMessage,
    ChatMessage,
    FunctionMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)

import ihigraph
from ihigraph.langchain import IhigraphChatMessageHistory


def conversation():
    return [
        SystemMessage("You are a travel agent.", id="m0"),
        HumanMessage("Weather in Kyoto?", name="ana", id="m1", additional_kwargs={"lang": "en"}),
        AIMessage(
            "",
            id="m2",
            tool_calls=[
                {"name": "weather", "args": {"city": "Kyoto", "days": 2}, "id": "call-1"},
                {"name": "clock", "args": {}, "id": "call-2"},
            ],
            response_metadata={"model_name": "gpt-x", "finish_reason": "tool_calls"},
            usage_metadata={"input_tokens": 12, "output_tokens": 7, "total_tokens": 19},
        ),
        ToolMessage("18°C, rain", tool_call_id="call-1", name="weather", id="m3"),
        ToolMessage("boom", tool_call_id="call-2", status="error", id="m4"),
        AIMessage(
            [{"type": "text", "text": "Rainy, 18°C."}],
            id="m5",
            additional_kwargs={"refusal": None, "big": 12345678901234567890123},
        ),
        ChatMessage("Thanks!", role="user", id="m6"),
        FunctionMessage("42", name="answer", id="m7"),
        HumanMessage("And tomorrow?", id="m8"),
    ]


@pytest.fixture
def history(store):
    return IhigraphChatMessageHistory("chat", store=store)


def test_is_a_chat_message_history(history):
    assert isinstance(history, BaseChatMessageHistory)
    assert history.messages == []


def test_messages_come_back_equal(history):
    messages = conversation()
    history.add_messages(messages)
    assert history.messages == messages
    back = history.messages
    assert back[2].tool_calls[0]["id"] == "call-1" and back[3].tool_call_id == "call-1"
    assert back[5].additional_kwargs["big"] == 12345678901234567890123
    assert back[1].name == "ana" and back[4].status == "error"


def test_add_one_at_a_time_equals_in_bulk(store):
    one = IhigraphChatMessageHistory("one", store=store)
    for message in conversation():
        one.add_message(message)
    bulk = IhigraphChatMessageHistory("bulk", store=store)
    bulk.add_messages(conversation())
    assert one.messages == bulk.messages == conversation()
    parts = lambda session: [
        (t["Role"], t["PRCPrompt"], t["BKNResponse"]) for t in store.history(session)["Turns"]
    ]
    assert parts("one") == parts("bulk")


def test_adds_after_a_write_by_another_way_see_it(history, store):
    # The adapter keeps the chats it wrote, to add to them without reading them back:
    # only while the store's record says nothing else wrote the session since.
    history.add_messages(conversation()[:3])
    store.delete("chat")
    history.add_messages([HumanMessage("again")])
    assert [m.content for m in history.messages] == ["again"]
    history.add_messages([AIMessage("answered")])
    assert dict(store.verify(["chat"]))["chat"] == "intact"
    # An update records no fingerprint: here it empties the session's graph.
    store.update(
        'DELETE { GRAPH ?g { ?s ?p ?o } } WHERE { GRAPH ?g { ?c ?id "chat" . ?s ?p ?o } }'
    )
    assert store.sessions() == []
    history.add_messages([HumanMessage("once more")])
    assert [m.content for m in history.messages] == ["once more"]
    assert dict(store.verify(["chat"]))["chat"] == "intact"


def test_adds_to_more_chats_than_are_kept(store):
    histories = [IhigraphChatMessageHistory(f"s{index}", store=store) for index in range(20)]
    for history in histories:
        history.add_messages([HumanMessage(f"{history.session_id} asks")])
    for history in histories:
        history.add_messages([AIMessage(f"{history.session_id} answers")])
    for history in histories:
        assert [m.content for m in history.messages] == [
            f"{history.session_id} asks",
            f"{history.session_id} answers",
        ]
    assert {status for _, status in store.verify()} == {"intact"}


def test_convenience_methods(history):
    history.add_user_message("hi")
    history.add_ai_message("hello")
    assert [type(m) for m in history.messages] == [HumanMessage, AIMessage]
    assert "Human: hi" in str(history)


def test_clear_deletes_the_session(history, store):
    history.add_messages(conversation())
    assert store.sessions() == ["chat"]
    history.clear()
    assert history.messages == [] and store.sessions() == []
    history.clear()  # clearing an empty history is fine


def test_sessions_are_separate(store):
    a = IhigraphChatMessageHistory("a", store=store)
    b = IhigraphChatMessageHistory("b", store=store)
    a.add_messages([HumanMessage("for a"), AIMessage("a!")])
    b.add_messages([HumanMessage("for b")])
    assert [m.content for m in a.messages] == ["for a", "a!"]
    assert [m.content for m in b.messages] == ["for b"]
    b.clear()
    assert len(a.messages) == 2


async def test_async_methods(history):
    await history.aadd_messages(conversation())
    assert await history.aget_messages() == conversation()
    await history.aclear()
    assert await history.aget_messages() == []


def test_a_store_on_disk_keeps_the_history(tmp_path):
    history = IhigraphChatMessageHistory("kept", path=tmp_path / "store")
    history.add_messages(conversation())
    del history
    again = IhigraphChatMessageHistory("kept", path=tmp_path / "store")
    assert again.messages == conversation()
    with pytest.raises(ValueError):
        IhigraphChatMessageHistory("x", store=ihigraph.Store(), path=tmp_path)


def test_the_session_is_like_any_other(history, store):
    history.add_messages(conversation())
    document = store.history("chat")
    # Three AI... two AI messages close two turns; the messages after them await a reply.
    assert document["TurnCount"] == 3
    assert [d for d in ihigraph.validate(document) if d.is_error] == []
    tools = {row["tool"]: row for row in store.query("tool-stats", session="chat")}
    assert set(tools) == {"weather", "clock"}
    assert (tools["weather"]["calls"], tools["weather"]["failedCalls"]) == (1, 0)
    assert (tools["clock"]["calls"], tools["clock"]["failedCalls"]) == (1, 1)
    rows = store.query("recent-turns", session="chat", n=5)
    assert [r["turnIndex"] for r in rows] == [2, 1, 0]
    context = store.context("chat", 8000, format="openai-chat")
    request = context["request"]["messages"]
    assert request[0] == {"role": "system", "content": "You are a travel agent."}
    assert any(m.get("tool_call_id") == "call-1" for m in request)
    assert context["awaiting"] == ["2"]
    assert "chat" in store.report(sessions=["chat"])
    assert dict(store.verify(["chat"]))["chat"] == "intact"


def test_a_message_the_importer_refuses_says_where(history):
    with pytest.raises(ihigraph.ConversionError) as raised:
        history.store.add_chat_messages("chat", [{"type": "tool", "data": {"content": "x"}}])
    assert raised.value.pointer == "/0/data/tool_call_id"
    assert history.messages == []
