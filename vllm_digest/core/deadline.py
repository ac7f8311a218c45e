"""A total deadline for one network exchange, whatever the server does.

httpx's timeouts (and a socket's) bound each network operation and start again on every byte
received: a server that trickles its answer a byte at a time holds a request for as long as it
likes. So the exchange runs in a worker thread that the caller waits for until the deadline.
The worker is told to stop (an HTTP exchange checks before it connects, before it sends and at
every chunk of the answer; ``cancel`` can close a socket) and, if still busy, is left behind as a
daemon that ends at its next chunk or at its per-operation timeout, which is cut to the deadline.

Shared by every stage that speaks HTTP or SMTP outside the GitHub client (whose own retry loop
predates this module): delivery's webhooks and e-mail, the narrative's LLM provider.
"""

from __future__ import annotations

import threading
import time
from typing import Callable, TypeVar

import httpx

T = TypeVar("T")


class DeadlineExceeded(TimeoutError):
    """The exchange did not finish within its deadline; the caller names the exchange and the setting."""

    def __init__(self, seconds: float):
        self.seconds = seconds
        super().__init__(f"no complete answer within {seconds:g}s")


class BodyTooLarge(ValueError):
    """The answer's body is longer than the exchange's cap; it was not read past the cap."""

    def __init__(self, limit: int):
        self.limit = limit
        super().__init__(f"the answer is longer than {limit} bytes")


class Deadline:
    """A moment ``seconds`` from now."""

    def __init__(self, seconds: float):
        self.seconds = seconds
        self.at = time.monotonic() + seconds

    def remaining(self) -> float:
        return max(0.0, self.at - time.monotonic())

    @property
    def expired(self) -> bool:
        return time.monotonic() >= self.at


def run_within(work: Callable[[], T], deadline: Deadline, cancel: Callable[[], None] | None = None,
               name: str = "network-exchange") -> T:
    """``work()``'s result, or ``DeadlineExceeded`` once the deadline passes (after calling
    ``cancel``, which should make the worker give up, e.g. by shutting its socket down).
    An exception of ``work`` is raised here, in the caller's thread."""
    outcome: dict[str, object] = {}
    done = threading.Event()

    def worker() -> None:
        try:
            outcome["result"] = work()
        except BaseException as exc:  # handed to the waiting thread, which raises it
            outcome["error"] = exc
        finally:
            done.set()

    threading.Thread(target=worker, name=name, daemon=True).start()
    if not done.wait(deadline.remaining()):
        if cancel is not None:
            cancel()
        raise DeadlineExceeded(deadline.seconds)
    if "error" in outcome:
        raise outcome["error"]  # type: ignore[misc]
    return outcome["result"]  # type: ignore[return-value]


class RequestProgress:
    """How far one HTTP request got, from httpcore's trace events, and the switch that stops it.

    ``headers_started`` once the request's first byte is about to go out, ``body_sent`` once the
    whole request (headers and body) went out, ``status`` once the answer's status line arrived.
    A failure before the headers means the server cannot have acted on the request.

    At the deadline the waiting thread calls ``cancel()``, but the worker goes on: closing the client
    does not stop a connection still being made (a slow name lookup, TLS handshake or proxy CONNECT).
    So the worker asks here, under the same lock, before it connects and before it sends the headers,
    and gives up if cancelled. Once ``cancel()`` returned, ``headers_started`` no longer changes: read
    after it, False means the request never went out and never will."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.cancelled = False
        self.headers_started = False
        self.body_sent = False
        self.status: int | None = None

    def cancel(self) -> None:
        with self._lock:
            self.cancelled = True

    def answered(self, status: int) -> None:
        with self._lock:
            self.status = status

    def trace(self, event: str, info: dict) -> None:
        # http11.send_request_headers.started (http2.… alike); connection.connect_tcp.started, start_tls
        with self._lock:
            if event.endswith((".connect_tcp.started", ".start_tls.started", "send_request_headers.started")):
                if self.cancelled:
                    raise RequestCancelled("the deadline passed before the request went out")
                # a proxy's CONNECT carries nothing of the request: the server has not seen it yet
                request = info.get("request")
                if event.endswith("send_request_headers.started") and getattr(request, "method", b"") != b"CONNECT":
                    self.headers_started = True
            elif event.endswith("send_request_body.complete"):
                self.body_sent = True


class RequestCancelled(Exception):
    """Raised in the worker (and handed to nobody): the waiting thread gave up before the request went out."""


def http_exchange(client: httpx.Client, method: str, url: str, deadline: Deadline, *,
                  operation_timeout: float, progress: RequestProgress | None = None,
                  max_bytes: int | None = None, **kwargs) -> tuple[httpx.Response, bytes]:
    """One request and its whole body within ``deadline`` (``DeadlineExceeded`` otherwise); httpx's
    errors as httpx raises them. ``operation_timeout`` bounds each network operation, cut to the
    deadline, so a worker left behind ends soon too. ``max_bytes``: ``BodyTooLarge`` as soon as the
    body (declared or read so far) is longer, so a huge answer is never held whole."""
    progress = progress or RequestProgress()
    timeout = httpx.Timeout(max(0.001, min(operation_timeout, deadline.remaining())))

    def work() -> tuple[httpx.Response, bytes]:
        chunks: list[bytes] = []
        with client.stream(method, url, timeout=timeout, extensions={"trace": progress.trace}, **kwargs) as response:
            progress.answered(response.status_code)
            declared = response.headers.get("content-length", "")
            if max_bytes is not None and declared.isdigit() and int(declared) > max_bytes:
                raise BodyTooLarge(max_bytes)
            size = 0
            for chunk in response.iter_bytes():
                if deadline.expired:
                    raise DeadlineExceeded(deadline.seconds)
                size += len(chunk)
                if max_bytes is not None and size > max_bytes:
                    raise BodyTooLarge(max_bytes)
                chunks.append(chunk)
        return response, b"".join(chunks)

    return run_within(work, deadline, cancel=progress.cancel, name=f"http-{method.lower()}")
