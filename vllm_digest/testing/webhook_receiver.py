"""A local webhook receiver: records every POST (path, headers, body) and answers as scripted."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from vllm_digest.testing.net import free_port


class WebhookReceiver:
    """``answers``: (status, body) per request in order; after them, ``default``."""

    def __init__(self, answers=(), default=(200, '{"ok": true}')):
        self.requests: list[dict] = []
        self.answers = list(answers)
        self.default = default
        self.port = free_port()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                receiver.requests.append({"path": self.path, "headers": dict(self.headers), "body": body})
                status, text = receiver.answers.pop(0) if receiver.answers else receiver.default
                data = text.encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def url(self, path: str = "/hook/T0KEN-in-the-path") -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def payloads(self) -> list[dict]:
        return [json.loads(r["body"]) for r in self.requests]

    def __enter__(self) -> "WebhookReceiver":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()
