"""A real OpenAI-compatible HTTP server on 127.0.0.1 for tests.

Replies are scripted: a queue of ``Reply`` objects (or plain strings), or a
function of the request body. Every request is recorded with its headers and
JSON body so tests can assert on what actually went over the wire.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable


@dataclass
class Reply:
    content: str = ""
    status: int = 200
    delay: float = 0.0  # seconds before answering; beyond the client timeout it is a timeout
    malformed: bool = False  # a 200 whose body is not JSON
    trickle: float = 0.0  # > 0: headers, then one byte every `trickle` seconds, endlessly (until the test ends)
    prompt_tokens: int = 100
    completion_tokens: int = 50
    usage: object = None  # not None: sent as the reply's "usage" in place of the counts above (any JSON value)
    body: object = None  # not None: a 200 whose whole JSON body is this value (a reply of the wrong shape)


@dataclass
class RecordedRequest:
    path: str
    headers: dict[str, str]
    body: dict | None


def _json_bytes(payload) -> bytes:
    """The payload as a server's JSON encoder sends it: UTF-8, or ``\\uXXXX`` escapes for a text that has no
    UTF-8 (a lone surrogate, which a Python server escapes rather than refuses)."""
    try:
        return json.dumps(payload, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(payload).encode("ascii")


class OpenAIEmulator:
    def __init__(self, responder: Callable[[dict], Reply | str] | None = None):
        self.replies: deque[Reply | str] = deque()
        self.responder = responder
        self.requests: list[RecordedRequest] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._server.daemon_threads = True
        # a short poll interval keeps shutdown (one per test) from costing half a second
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def root_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def base_url(self) -> str:
        return self.root_url + "/v1"

    def queue(self, *replies: Reply | str) -> None:
        self.replies.extend(replies)

    def __enter__(self) -> "OpenAIEmulator":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stopping.set()  # cuts short any slow reply still sleeping
        self._server.shutdown()
        self._server.server_close()

    def _next_reply(self, body: dict | None) -> Reply:
        with self._lock:
            if self.responder is not None:
                reply = self.responder(body or {})
            elif self.replies:
                reply = self.replies.popleft()
            else:
                reply = Reply(status=500, content="emulator: no scripted reply left")
        return Reply(content=reply) if isinstance(reply, str) else reply

    def _handler_class(self):
        emulator = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep test output quiet
                pass

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw)
                except ValueError:
                    body = None
                with emulator._lock:
                    emulator.requests.append(
                        RecordedRequest(self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                    )
                if self.path.rstrip("/") not in ("/v1/chat/completions", "/chat/completions"):
                    return self._send(404, b'{"error": "not found"}')
                reply = emulator._next_reply(body)
                if reply.delay and emulator._stopping.wait(reply.delay):
                    return
                if reply.trickle:
                    return self._trickle(reply.trickle)
                if reply.malformed:
                    return self._send(200, b'{"choices": [ this is not json')
                if reply.body is not None:
                    return self._send(200, _json_bytes(reply.body))
                if reply.status != 200:
                    payload = {"error": {"message": reply.content or "server error"}}
                    return self._send(reply.status, json.dumps(payload).encode())
                payload = {
                    "id": f"chatcmpl-{len(emulator.requests)}",
                    "object": "chat.completion",
                    "model": (body or {}).get("model"),
                    "choices": [
                        {"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": reply.content}}
                    ],
                    "usage": {
                        "prompt_tokens": reply.prompt_tokens,
                        "completion_tokens": reply.completion_tokens,
                        "total_tokens": reply.prompt_tokens + reply.completion_tokens,
                    } if reply.usage is None else reply.usage,
                }
                self._send(200, _json_bytes(payload))

            def _trickle(self, interval: float) -> None:
                # each byte comes well within the client's timeout, which httpx starts again on every byte
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    # a declared length under the narrative's reply cap, so that the deadline, not the cap, ends it
                    self.send_header("Content-Length", "100000")
                    self.end_headers()
                    while not emulator._stopping.wait(interval):
                        self.wfile.write(b" ")
                        self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def _send(self, status: int, data: bytes) -> None:
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test): nothing to deliver

        return Handler
