"""What every emitter script shares: OpenTelemetry's SDK wired to the official OTLP/HTTP
exporters, and the normalised shape of ``expected.json``.

The exporters read the standard variables (``OTEL_EXPORTER_OTLP_ENDPOINT``, to which they add
``/v1/traces`` and ``/v1/logs``; ``OTEL_EXPORTER_OTLP_HEADERS``; ``..._PROTOCOL`` is
``http/protobuf``, the only one these exporters speak). Nothing here opens a connection but
the exporters' own, so the scripts run offline.

``expected.json`` is what the framework itself reports of the conversation, in one shape for
every framework::

    {
      "framework": "pydantic-ai",           # which stack wrote it
      "session": {"attribute": "gen_ai.conversation.id", "id": "..."},  # how spans name it
      "messages": [
        {"role": "system" | "user" | "assistant" | "tool",
         "text": "..." | null,               # the message's text, parts joined by "\n"
         "tool_calls": [{"id": "...", "name": "...", "arguments": {...}}],  # assistant only
         "tool_call_id": "..." | null}      # tool only: the call this is the result of
      ]
    }

Arguments are JSON values (objects, as the model gave them); a tool message's ``text`` is its
result as the framework serialised it for the model.
"""

import json
import os
import pathlib
import sys

from opentelemetry import trace
from opentelemetry._logs import set_logger_provider
from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk._logs.export import BatchLogRecordProcessor
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor


def providers(service_name: str) -> tuple[TracerProvider, LoggerProvider]:
    """A tracer and a logger provider exporting over OTLP/HTTP, set as the global ones."""
    if not os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT") and not os.environ.get(
        "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
    ):
        sys.exit("set OTEL_EXPORTER_OTLP_ENDPOINT (for example http://127.0.0.1:4318)")
    resource = Resource.create({"service.name": service_name})
    tracer_provider = TracerProvider(resource=resource)
    tracer_provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    trace.set_tracer_provider(tracer_provider)
    logger_provider = LoggerProvider(resource=resource)
    logger_provider.add_log_record_processor(BatchLogRecordProcessor(OTLPLogExporter()))
    set_logger_provider(logger_provider)
    return tracer_provider, logger_provider


def shutdown(tracer_provider: TracerProvider, logger_provider: LoggerProvider) -> None:
    """Everything exported before the script ends (the batch processors send on shutdown)."""
    tracer_provider.force_flush()
    logger_provider.force_flush()
    tracer_provider.shutdown()
    logger_provider.shutdown()


def message(role, text=None, tool_calls=(), tool_call_id=None) -> dict:
    """One message of ``expected.json``."""
    return {
        "role": role,
        "text": text,
        "tool_calls": list(tool_calls),
        "tool_call_id": tool_call_id,
    }


def tool_call(call_id: str, name: str, arguments) -> dict:
    """One tool call of an assistant message; ``arguments`` parsed when given as JSON text."""
    if isinstance(arguments, str):
        arguments = json.loads(arguments) if arguments else {}
    return {"id": call_id, "name": name, "arguments": arguments}


def write_expected(framework: str, session_attribute: str, session_id: str, messages) -> None:
    """``expected.json`` where ``EXPECTED_JSON`` says, else beside the current directory."""
    path = pathlib.Path(os.environ.get("EXPECTED_JSON", "expected.json"))
    document = {
        "framework": framework,
        "session": {"attribute": session_attribute, "id": session_id},
        "messages": list(messages),
    }
    path.write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
