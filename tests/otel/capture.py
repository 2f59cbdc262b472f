"""A capture receiver for OTLP/HTTP: stores each request body exactly as the exporter sent it.

Run as ``python capture.py DIRECTORY [PORT]``: it prints ``listening on PORT`` once bound
(port 0, the default, picks a free one) and writes ``NNN-traces.pb`` / ``NNN-logs.pb`` (with
``.gz`` added when the body came gzip-compressed) into DIRECTORY, numbered in arrival order.
It answers as an OTLP/HTTP receiver does on full success: 200 with an empty
``Export*ServiceResponse`` (zero bytes in protobuf, ``{}`` in JSON). Used by ``emitters/`` to
record fixtures; stdlib only.
"""

import http.server
import itertools
import pathlib
import sys
import threading

SIGNALS = {"/v1/traces": "traces", "/v1/logs": "logs", "/v1/metrics": "metrics"}


def make_handler(directory: pathlib.Path):
    counter = itertools.count(1)
    lock = threading.Lock()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 (the stdlib's name)
            signal = SIGNALS.get(self.path)
            if signal is None:
                self.send_error(404, "OTLP/HTTP paths are /v1/traces, /v1/logs, /v1/metrics")
                return
            length = int(self.headers.get("Content-Length", "0"))
            body = self.rfile.read(length)
            content_type = self.headers.get("Content-Type", "")
            extension = ".json" if content_type.startswith("application/json") else ".pb"
            if self.headers.get("Content-Encoding", "").lower() == "gzip":
                extension += ".gz"
            with lock:
                number = next(counter)
            (directory / f"{number:03}-{signal}{extension}").write_bytes(body)
            answer = b"{}" if extension.startswith(".json") else b""
            self.send_response(200)
            self.send_header("Content-Type", content_type or "application/x-protobuf")
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        def log_message(self, *args):
            pass

    return Handler


def serve(directory: pathlib.Path, port: int = 0) -> http.server.ThreadingHTTPServer:
    """A running receiver on 127.0.0.1 (its thread is a daemon); ``server_port`` says where."""
    directory.mkdir(parents=True, exist_ok=True)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), make_handler(directory))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


if __name__ == "__main__":
    target = pathlib.Path(sys.argv[1])
    running = serve(target, int(sys.argv[2]) if len(sys.argv) > 2 else 0)
    print(f"listening on {running.server_port}", flush=True)
    threading.Event().wait()
