"""Pydantic AI, instrumented, with a deterministic FunctionModel: two user prompts in one
conversation (the second run continues the first through ``message_history``), each answered
by a tool call, its result, and a final answer.

Spans go to ``OTEL_EXPORTER_OTLP_ENDPOINT`` through Pydantic AI's own instrumentation
(``agent.instrument = InstrumentationSettings(...)``, content captured, its default data format) and the official
OTLP/HTTP exporter; ``expected.json`` gets ``result.all_messages()`` of the second run, which
holds the whole conversation, normalised as ``common.py`` says. Offline: no provider is called.
"""

from common import message, providers, shutdown, tool_call, write_expected
from pydantic_ai import Agent
from pydantic_ai.messages import (
    ModelRequest,
    ModelResponse,
    SystemPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.instrumented import InstrumentationSettings

CONVERSATION_ID = "pydantic-ai-weather-1"
WEATHER = {"Paris": "18 °C and sunny", "Oslo": "4 °C with light rain"}


def last_prompt(messages) -> str:
    for request in reversed(messages):
        for part in getattr(request, "parts", ()):
            if isinstance(part, UserPromptPart):
                return part.content
    return ""


def weather_model(messages, info: AgentInfo) -> ModelResponse:
    """Asks for the weather of the city the newest prompt names, then answers with it."""
    newest = messages[-1]
    returns = [part for part in newest.parts if isinstance(part, ToolReturnPart)]
    if returns:
        city = returns[0].tool_call_id.removeprefix("call_weather_")
        return ModelResponse(parts=[TextPart(f"In {city.title()} it is {returns[0].content}.")])
    city = "Oslo" if "Oslo" in last_prompt(messages) else "Paris"
    return ModelResponse(
        parts=[
            ToolCallPart(
                tool_name="get_weather",
                args={"city": city},
                tool_call_id=f"call_weather_{city.lower()}",
            )
        ]
    )


def normalised(messages) -> list[dict]:
    """``all_messages()`` in the shape of ``expected.json``."""
    found = []
    for item in messages:
        if isinstance(item, ModelResponse):
            texts = [part.content for part in item.parts if isinstance(part, TextPart)]
            calls = [
                tool_call(part.tool_call_id, part.tool_name, part.args_as_dict())
                for part in item.parts
                if isinstance(part, ToolCallPart)
            ]
            found.append(message("assistant", "\n".join(texts) or None, calls))
            continue
        for part in item.parts:
            if isinstance(part, SystemPromptPart):
                found.append(message("system", part.content))
            elif isinstance(part, UserPromptPart):
                found.append(message("user", part.content))
            elif isinstance(part, ToolReturnPart):
                found.append(
                    message("tool", part.model_response_str(), tool_call_id=part.tool_call_id)
                )
            else:
                raise SystemExit(f"a part this script does not normalise: {part!r}")
    return found


def main() -> None:
    tracer_provider, logger_provider = providers("pydantic-ai-weather")
    agent = Agent(
        FunctionModel(weather_model, model_name="weather-function-model"),
        system_prompt="You are a weather assistant. Use get_weather for current conditions.",
        name="weather_agent",
    )
    # Content capture on (the default, said outright), in Pydantic AI's default data format.
    agent.instrument = InstrumentationSettings(
        tracer_provider=tracer_provider, include_content=True
    )

    @agent.tool_plain
    def get_weather(city: str) -> str:
        """The current weather of a city."""
        return WEATHER[city]

    first = agent.run_sync("What is the weather in Paris?", conversation_id=CONVERSATION_ID)
    second = agent.run_sync("And in Oslo?", message_history=first.all_messages())
    shutdown(tracer_provider, logger_provider)
    write_expected(
        "pydantic-ai", "gen_ai.conversation.id", CONVERSATION_ID, normalised(second.all_messages())
    )


if __name__ == "__main__":
    main()
