"""LangChain under OpenInference's instrumentation, with a fake chat model that makes tool
calls: two user prompts in one conversation, each answered by a tool call, the tool's result
(a ToolMessage from the tool's own ``invoke``), and a final answer; every span in the
conversation carries ``session.id`` through ``using_session``.

Spans go to ``OTEL_EXPORTER_OTLP_ENDPOINT`` through ``LangChainInstrumentor`` and the official
OTLP/HTTP exporter; ``expected.json`` gets the conversation's LangChain message list (what the
loop below handed the model, plus its last answer), normalised as ``common.py`` says.
Offline: the model is ``GenericFakeChatModel`` replaying canned ``AIMessage``s.
"""

from common import message, providers, shutdown, tool_call, write_expected
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.runnables import RunnableLambda
from langchain_core.tools import tool
from openinference.instrumentation import using_session
from openinference.instrumentation.langchain import LangChainInstrumentor

SESSION_ID = "langchain-weather-1"
WEATHER = {"Paris": "18 °C and sunny", "Oslo": "4 °C with light rain"}


@tool
def get_weather(city: str) -> str:
    """The current weather of a city."""
    return WEATHER[city]


def canned_answers() -> list[AIMessage]:
    """What the fake model says, in order: a call, an answer, a call, an answer."""
    answers = []
    for city in ("Paris", "Oslo"):
        answers.append(
            AIMessage(
                content="",
                tool_calls=[
                    {"name": "get_weather", "args": {"city": city}, "id": f"call_{city.lower()}"}
                ],
            )
        )
        answers.append(AIMessage(content=f"In {city} it is {WEATHER[city]}."))
    return answers


def run_turn(model, messages: list, prompt: str) -> str:
    """One user prompt through the model and its tools until it answers in text."""
    messages.append(HumanMessage(prompt))
    while True:
        reply = model.invoke(messages)
        messages.append(reply)
        if not reply.tool_calls:
            return reply.text
        for call in reply.tool_calls:
            # Invoked with the whole call, a tool answers with a ToolMessage naming its id.
            messages.append(get_weather.invoke({**call, "type": "tool_call"}))


def normalised(messages: list) -> list[dict]:
    found = []
    for item in messages:
        if isinstance(item, SystemMessage):
            found.append(message("system", item.text))
        elif isinstance(item, HumanMessage):
            found.append(message("user", item.text))
        elif isinstance(item, AIMessage):
            calls = [tool_call(call["id"], call["name"], call["args"]) for call in item.tool_calls]
            found.append(message("assistant", item.text or None, calls))
        elif isinstance(item, ToolMessage):
            found.append(message("tool", item.text, tool_call_id=item.tool_call_id))
        else:
            raise SystemExit(f"a message this script does not normalise: {item!r}")
    return found


def main() -> None:
    tracer_provider, logger_provider = providers("langchain-weather")
    LangChainInstrumentor().instrument(tracer_provider=tracer_provider)
    model = GenericFakeChatModel(messages=iter(canned_answers()))
    messages = [SystemMessage("You are a weather assistant. Use get_weather for current conditions.")]
    # Each turn is a runnable of its own, as an agent executor's would be: its CHAIN span is
    # the parent of the turn's LLM and TOOL spans, and each turn is a trace of its own.
    turn = RunnableLambda(lambda prompt: run_turn(model, messages, prompt), name="weather_turn")
    with using_session(SESSION_ID):
        turn.invoke("What is the weather in Paris?")
        turn.invoke("And in Oslo?")
    shutdown(tracer_provider, logger_provider)
    LangChainInstrumentor().uninstrument()
    write_expected("langchain", "session.id", SESSION_ID, normalised(messages))


if __name__ == "__main__":
    main()
