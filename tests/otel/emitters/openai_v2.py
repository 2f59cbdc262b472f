"""The official OpenTelemetry OpenAI instrumentation (``opentelemetry-instrumentation-openai-v2``)
around the real ``openai`` client, talking to a stand-in of the Chat Completions API on
127.0.0.1 that answers with canned completions: two user prompts in one conversation, each
answered by a tool call (run by this script, as an application does), its result sent back,
and a final answer.

``python openai_v2.py legacy`` keeps the instrumentation's default conventions (v1.30: content
as per-message log events, ``gen_ai.user.message``, ``gen_ai.choice``, ...);
``python openai_v2.py latest`` opts into the newest (``OTEL_SEMCONV_STABILITY_OPT_IN=
gen_ai_latest_experimental``: ``gen_ai.input.messages``/``gen_ai.output.messages`` on the span
and the ``gen_ai.client.inference.operation.details`` event). Content capture is on in both.

The instrumentation names no conversation, so the application does what one would: the whole
conversation runs inside one span of its own (``invoke_agent weather_assistant``) carrying
``gen_ai.conversation.id``; the model-call spans are its children. Spans and logs go to
``OTEL_EXPORTER_OTLP_ENDPOINT``; ``expected.json`` gets the message list the script sent, plus
the last answer, normalised as ``common.py`` says.
"""

import http.server
import json
import os
import sys
import threading

CONVERSATION_ID = "openai-weather-1"
MODEL = "gpt-4o-mini-2024-07-18"
WEATHER = {"Paris": "18 °C and sunny", "Oslo": "4 °C with light rain"}
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "The current weather of a city.",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
            },
        },
    }
]


def canned_completion(request: dict, number: int) -> dict:
    """What the stand-in answers: a call for the city the newest prompt names, or, after the
    tool's result, the answer it gives."""
    last = request["messages"][-1]
    if last["role"] == "tool":
        city = last["tool_call_id"].removeprefix("call_").title()
        choice = {
            "index": 0,
            "finish_reason": "stop",
            "message": {"role": "assistant", "content": f"In {city} it is {last['content']}."},
        }
    else:
        city = "Oslo" if "Oslo" in last["content"] else "Paris"
        call = {
            "id": f"call_{city.lower()}",
            "type": "function",
            "function": {"name": "get_weather", "arguments": json.dumps({"city": city})},
        }
        choice = {
            "index": 0,
            "finish_reason": "tool_calls",
            "message": {"role": "assistant", "content": None, "tool_calls": [call]},
        }
    return {
        "id": f"chatcmpl-standin-{number}",
        "object": "chat.completion",
        "created": 1764000000 + number,
        "model": MODEL,
        "choices": [choice],
        "usage": {"prompt_tokens": 40 + 10 * number, "completion_tokens": 12, "total_tokens": 52 + 10 * number},
    }


def stand_in() -> http.server.ThreadingHTTPServer:
    """The Chat Completions stand-in, on a free port of 127.0.0.1."""
    counter = iter(range(1, 1000))

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 (the stdlib's name)
            if self.path != "/v1/chat/completions":
                self.send_error(404)
                return
            request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            body = json.dumps(canned_completion(request, next(counter))).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def run_turn(client, messages: list, prompt: str) -> None:
    messages.append({"role": "user", "content": prompt})
    while True:
        reply = client.chat.completions.create(model=MODEL, messages=messages, tools=TOOLS)
        answer = reply.choices[0].message
        messages.append(answer.model_dump(exclude_none=True, exclude_unset=True))
        if not answer.tool_calls:
            return
        for call in answer.tool_calls:
            city = json.loads(call.function.arguments)["city"]
            messages.append({"role": "tool", "tool_call_id": call.id, "content": WEATHER[city]})


def normalised(messages: list) -> list[dict]:
    from common import message, tool_call

    found = []
    for item in messages:
        calls = [
            tool_call(call["id"], call["function"]["name"], call["function"]["arguments"])
            for call in item.get("tool_calls", ())
        ]
        found.append(
            message(item["role"], item.get("content"), calls, item.get("tool_call_id"))
        )
    return found


def main() -> None:
    mode = sys.argv[1] if len(sys.argv) > 1 else "legacy"
    if mode == "latest":
        os.environ["OTEL_SEMCONV_STABILITY_OPT_IN"] = "gen_ai_latest_experimental"
        os.environ["OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"] = "span_and_event"
    elif mode == "legacy":
        os.environ["OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"] = "true"
    else:
        sys.exit("usage: openai_v2.py [legacy|latest]")
    # Imported once the variables are set: the instrumentation reads them when it loads.
    from common import providers, shutdown, write_expected
    from openai import OpenAI
    from opentelemetry import trace
    from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor

    tracer_provider, logger_provider = providers(f"openai-weather-{mode}")
    OpenAIInstrumentor().instrument(tracer_provider=tracer_provider)
    server = stand_in()
    # A placeholder key: the stand-in reads none, and nothing leaves 127.0.0.1.
    client = OpenAI(
        base_url=f"http://127.0.0.1:{server.server_port}/v1", api_key="offline-stand-in", max_retries=0
    )
    messages = [{"role": "system", "content": "You are a weather assistant. Use get_weather for current conditions."}]
    tracer = trace.get_tracer("weather-assistant")
    with tracer.start_as_current_span(
        "invoke_agent weather_assistant",
        attributes={
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.agent.name": "weather_assistant",
            "gen_ai.conversation.id": CONVERSATION_ID,
        },
    ):
        run_turn(client, messages, "What is the weather in Paris?")
        run_turn(client, messages, "And in Oslo?")
    server.shutdown()
    shutdown(tracer_provider, logger_provider)
    OpenAIInstrumentor().uninstrument()
    write_expected(f"openai-v2-{mode}", "gen_ai.conversation.id", CONVERSATION_ID, normalised(messages))


if __name__ == "__main__":
    main()
