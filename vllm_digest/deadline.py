"""A total deadline for one network exchange, whatever the server does.

httpx's timeouts (and a socket's) bound each network operation and start again on every byte
received: a server that trickles its answer a byte at a time holds a request for as long as it
likes. So the exchange runs in a worker thread that the caller waits for until the deadline.
The worker is told to stop (an HTTP exchange checks the deadline at every chunk; ``cancel``
can close a socket) and, if still busy, is left behind as a daemon that ends at its next chunk
or at its per-operation timeout, which is cut to the deadline.

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
    """How far one HTTP request got, from httpcore's trace events: ``body_sent`` once the whole
    request (headers and body) went out. A failure before that means the server cannot have acted
    on the request; after it, the server may have, answer or not."""

    def __init__(self) -> None:
        self.body_sent = False

    def trace(self, event: str, info: dict) -> None:
        # http11.send_request_body.complete (http2.… alike)
        if event.endswith("send_request_body.complete"):
            self.body_sent = True


def http_exchange(client: httpx.Client, method: str, url: str, deadline: Deadline, *,
                  operation_timeout: float, progress: RequestProgress | None = None,
                  **kwargs) -> tuple[httpx.Response, bytes]:
    """One request and its whole body within ``deadline`` (``DeadlineExceeded`` otherwise); httpx's
    errors as httpx raises them. ``operation_timeout`` bounds each network operation, cut to the
    deadline, so a worker left behind ends soon too."""
    progress = progress or RequestProgress()
    timeout = httpx.Timeout(max(0.001, min(operation_timeout, deadline.remaining())))

    def work() -> tuple[httpx.Response, bytes]:
        chunks: list[bytes] = []
        with client.stream(method, url, timeout=timeout, extensions={"trace": progress.trace}, **kwargs) as response:
            for chunk in response.iter_bytes():
                if deadline.expired:
                    raise DeadlineExceeded(deadline.seconds)
                chunks.append(chunk)
        return response, b"".join(chunks)

    return run_within(work, deadline, name=f"http-{method.lower()}")
