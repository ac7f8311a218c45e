"""Servers that take a request and then do not answer in time, each real and on 127.0.0.1:

- ``SlowReceiver``: an HTTP receiver that reads and records each POST, then either trickles its answer
  (status and headers, then one byte a second, endlessly) or answers only once the test ends (late);
- ``SilentTcpServer``: accepts connections and never says a word (a hung git remote over http), and
  tells when the client end closed each connection;
- ``StallingSmtp``: aiosmtpd that takes the whole message and answers it only once the test ends;
- ``TricklingSmtp``: a greeting, then an EHLO reply that never ends, one byte at a time;
- ``DeafTcpServer``: accepts connections and never reads, so a large request stalls halfway;
- ``ScriptedSmtp``: takes the message (refusing some recipients) and never answers QUIT; optionally
  offers STARTTLS and holds the handshake.

Every one stops its handlers when the test leaves its ``with`` block.
"""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from aiosmtpd.controller import Controller

from vllm_digest.testing.net import free_port


TRICKLE, LATE = "trickle", "late"


class SlowReceiver:
    """``answers``: TRICKLE, LATE or (status, body) per request in order; after them, ``default``."""

    def __init__(self, answers=(), default=(200, '{"ok": true}'), interval: float = 1.0):
        self.requests: list[dict] = []
        self.answers = list(answers)
        self.default = default
        self.interval = interval
        self.stop = threading.Event()
        self.port = free_port()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                receiver.requests.append({"path": self.path, "headers": dict(self.headers), "body": body})
                answer = receiver.answers.pop(0) if receiver.answers else receiver.default
                try:
                    if answer == LATE:
                        receiver.stop.wait()  # the message is in; the answer comes after the client gave up
                        answer = receiver.default
                    if answer == TRICKLE:
                        self.send_response(200)
                        self.send_header("Content-Type", "application/json")
                        self.send_header("Content-Length", "1000000")
                        self.end_headers()
                        while not receiver.stop.wait(receiver.interval):
                            self.wfile.write(b" ")
                            self.wfile.flush()
                        return
                    status, text = answer
                    data = text.encode()
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:
                    pass  # the client gave up and closed the connection

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    def url(self, path: str = "/hook/T0KEN-in-the-path") -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def __enter__(self) -> "SlowReceiver":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop.set()
        self.server.shutdown()
        self.server.server_close()


class SilentTcpServer:
    """Accepts every connection, reads what comes and never answers. ``closed`` is set once a client
    has closed a connection it opened (the killed git helper's socket)."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.port = self.sock.getsockname()[1]
        self.accepted = threading.Event()
        self.closed = threading.Event()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)

    def _serve(self) -> None:
        self.sock.settimeout(0.1)
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except (TimeoutError, OSError):
                continue
            self.accepted.set()
            threading.Thread(target=self._hold, args=(conn,), daemon=True).start()

    def _hold(self, conn: socket.socket) -> None:
        conn.settimeout(0.1)
        with conn:
            while not self.stop.is_set():
                try:
                    if conn.recv(4096) == b"":
                        self.closed.set()
                        return
                except TimeoutError:
                    continue
                except OSError:
                    self.closed.set()
                    return

    def __enter__(self) -> "SilentTcpServer":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop.set()
        self.thread.join(5)
        self.sock.close()


class StallingSmtp:
    """aiosmtpd that reads the whole message (recorded in ``messages``) and answers it only when the
    test ends: the client sent it and got no answer."""

    def __init__(self):
        self.messages: list[bytes] = []
        self.port = free_port()
        self.stop = threading.Event()
        server = self

        class Handler:
            async def handle_DATA(self, smtp, session, envelope):
                server.messages.append(envelope.original_content)
                while not server.stop.is_set():
                    await asyncio.sleep(0.05)
                return "250 OK"

        self.controller = Controller(Handler(), hostname="127.0.0.1", port=self.port)

    def __enter__(self) -> "StallingSmtp":
        self.controller.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop.set()
        time.sleep(0.1)  # lets a stalled handler return before the loop stops
        self.controller.stop()


class TricklingSmtp(SilentTcpServer):
    """Greets, then answers EHLO with continuation lines one byte at a time, never the last line: each
    byte comes well within a socket timeout, the reply never ends. ``mail_commands`` counts MAIL FROMs."""

    def __init__(self, interval: float = 0.2):
        super().__init__()
        self.interval = interval
        self.mail_commands = 0

    def _hold(self, conn: socket.socket) -> None:
        with conn:
            try:
                conn.sendall(b"220 127.0.0.1 ESMTP trickling\r\n")
                conn.settimeout(5)
                line = conn.recv(4096)
                if line.upper().startswith(b"MAIL"):
                    self.mail_commands += 1
                while not self.stop.wait(self.interval):
                    for byte in b"250-still thinking\r\n":
                        conn.sendall(bytes([byte]))
                        if self.stop.wait(self.interval):
                            return
            except OSError:
                self.closed.set()


class DeafTcpServer(SilentTcpServer):
    """Accepts every connection and never reads from it: once the kernel's buffers are full, a client
    sending a large request is stuck halfway through it."""

    def _hold(self, conn: socket.socket) -> None:
        with conn:
            self.stop.wait()


class ScriptedSmtp(SilentTcpServer):
    """A small SMTP server that takes the message for every recipient but those in ``refuse`` (recorded
    in ``messages``), answers it, and then never answers QUIT. With ``tls`` (a server context) it offers
    STARTTLS, answers it after ``starttls_delay`` seconds and begins the handshake only once ``handshake``
    is set: a TLS handshake slower than the client's deadline. ``ended`` is set once a message came in
    or a connection ended."""

    def __init__(self, refuse: tuple[str, ...] = (), tls=None, starttls_delay: float = 0.0):
        super().__init__()
        self.refuse = refuse
        self.tls = tls
        self.starttls_delay = starttls_delay
        self.handshake = threading.Event()
        self.ended = threading.Event()
        self.messages: list[bytes] = []

    def _hold(self, conn: socket.socket) -> None:
        try:
            self._dialogue(conn)
        except OSError:
            self.closed.set()
        finally:
            self.ended.set()
            conn.close()

    def _dialogue(self, conn: socket.socket) -> None:
        conn.settimeout(30)
        reader = conn.makefile("rb")
        conn.sendall(b"220 127.0.0.1 ESMTP\r\n")
        while not self.stop.is_set():
            line = reader.readline()
            verb = line[:4].upper()
            if not line:
                return
            if verb == b"QUIT":
                self.stop.wait()  # the message was taken: the goodbye never comes
                return
            if verb == b"EHLO" and self.tls is not None:
                conn.sendall(b"250-127.0.0.1\r\n250 STARTTLS\r\n")
            elif verb == b"STAR" and self.tls is not None:
                self.stop.wait(self.starttls_delay)
                conn.sendall(b"220 go ahead\r\n")
                self.handshake.wait(30)
                conn = self.tls.wrap_socket(conn, server_side=True)
                reader = conn.makefile("rb")
                self.tls = None  # offered once
            elif verb == b"RCPT":
                refused = any(box.encode() in line for box in self.refuse)
                conn.sendall(b"550 no such user\r\n" if refused else b"250 OK\r\n")
            elif verb == b"DATA":
                conn.sendall(b"354 go ahead\r\n")
                data = b""
                while not data.endswith(b"\r\n.\r\n"):
                    more = reader.readline()
                    if not more:
                        return
                    data += more
                self.messages.append(data)
                self.ended.set()
                conn.sendall(b"250 OK\r\n")
            else:
                conn.sendall(b"250 OK\r\n")
