"""Fetching a web address for ``clip``: a total deadline, a redirect limit and a size cap read as it streams.

The body is never read past its cap: a declared ``Content-Length`` over it is
refused before the first byte, and an undeclared one is cut off as soon as the
count passes it (decompressed bytes are counted, so a gzip bomb is cut off too).

httpx's timeouts are per read, so a server that sends one byte a second (of its
headers or its body) would never trip them. The whole fetch, redirects, headers
and body together, has a total deadline (:data:`TOTAL_S`, DESIGN §8 "Every wait
has a total deadline"): a watchdog shuts the connection's socket down when it
passes, which wakes the read blocked on it, whatever phase the fetch is in.
"""

from __future__ import annotations

import re
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from email.message import Message
from urllib.parse import unquote, urlsplit, urlunsplit

from wikitui import __version__
from wikitui.core.base.errors import WikituiError

USER_AGENT = f"wikitui/{__version__} (clip)"
#: Seconds the whole fetch may take (connecting, redirects, headers, body), however the bytes trickle in.
TOTAL_S = 20.0
#: Seconds allowed for connecting and between two reads (each within :data:`TOTAL_S` too).
TIMEOUT = 20.0
MAX_REDIRECTS = 5


class FetchError(WikituiError):
    """The address could not be fetched (network, HTTP status, timeout): a network failure."""

    exit_code = 3


class BadAddress(WikituiError):
    """Not an http(s) address (a user error)."""


class TooLarge(WikituiError):
    """The body is larger than the cap; nothing was kept."""


def shown(url: str) -> str:
    """``url`` as it may be shown in a message: without a user name or password."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "the address"
    if parts.username is None and parts.password is None:
        return url
    # The host and port as written (the parsed ones may be None, or raise on a bad port, and lose IPv6's brackets).
    return urlunsplit(parts._replace(netloc=parts.netloc.rpartition("@")[2]))


def check_url(url: str) -> str:
    """``url`` when it is an http(s) address with a host.

    Raises:
        BadAddress: anything else (exit status 2: a user error).
    """
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        parts = None
    if parts is None or parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise BadAddress(f"not a web address: {shown(url)!r} (give an http:// or https:// address, or a file)")
    return url.strip()


class Download:
    """An HTTP response whose headers have arrived; the body is read by :meth:`chunks`."""

    def __init__(self, response, watchdog: _Watchdog, timeout: float) -> None:
        self._response = response
        self._watchdog = watchdog
        self._timeout = timeout
        #: The address the body came from (after redirects).
        self.url = str(response.url)
        header = response.headers.get("content-type", "")
        msg = Message()
        msg["content-type"] = header
        #: The media type in lower case, without parameters ("" when the server sent none).
        self.content_type = msg.get_content_type() if header else ""
        #: The body's length as the server declared it, or None.
        self.length = _int(response.headers.get("content-length"))
        #: A file name the server suggests (Content-Disposition), else the last part of the URL's path.
        self.filename = _filename(response.headers.get("content-disposition", ""), self.url)

    def chunks(self, max_bytes: int) -> Iterator[bytes]:
        """The body, block by block.

        Raises:
            TooLarge: the body is (or is declared) larger than ``max_bytes``; reading stops there.
            FetchError: the connection failed or the deadline passed.
        """
        import httpx

        if self.length is not None and self.length > max_bytes:
            raise TooLarge(self._too_large(max_bytes, declared=self.length))
        seen = 0
        watchdog = self._watchdog
        try:
            for chunk in self._response.iter_bytes():
                seen += len(chunk)
                if seen > max_bytes:
                    raise TooLarge(self._too_large(max_bytes))
                if watchdog.passed():
                    raise FetchError(watchdog.message(self.url))
                yield chunk
        except httpx.HTTPError as exc:
            if watchdog.passed():  # the watchdog cut the connection
                raise FetchError(watchdog.message(self.url)) from None
            if isinstance(exc, httpx.TimeoutException):
                raise FetchError(f"{shown(self.url)}: no answer within {self._timeout:g} s; "
                                 "nothing was written") from None
            raise FetchError(f"{shown(self.url)}: the download failed ({_reason(exc)}); nothing was written") from None
        if watchdog.passed():  # an end of the body the watchdog made: a cut page, not a whole one
            raise FetchError(watchdog.message(self.url))

    def read(self, max_bytes: int) -> bytes:
        """The whole body (at most ``max_bytes``; see :meth:`chunks`)."""
        return b"".join(self.chunks(max_bytes))

    def _too_large(self, max_bytes: int, declared: int | None = None) -> str:
        from wikitui.core.vault.formats.conversion import human_size

        size = f" ({human_size(declared)})" if declared else ""
        return (f"{shown(self.url)} is larger than the {human_size(max_bytes)} limit{size}; "
                "nothing was written")


class _Watchdog:
    """The total deadline of one fetch: when it passes, every connection the fetch opened is shut down.

    httpcore reports each new connection through its ``trace`` request extension
    (``connection.connect_tcp.complete``, with the network stream); a timer thread
    shuts those sockets down at the deadline, which makes a read blocked on one
    return at once, in the header phase as in the body.
    """

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._deadline = time.monotonic() + seconds
        self._expired = False
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True

    def __enter__(self) -> _Watchdog:
        self._timer.start()
        return self

    def __exit__(self, *exc) -> None:
        self._timer.cancel()

    def trace(self, event: str, info: dict) -> None:
        """httpcore's ``trace`` extension: remembers each connection's socket."""
        if event != "connection.connect_tcp.complete":
            return
        stream = info.get("return_value")
        sock = stream.get_extra_info("socket") if stream is not None else None
        if not isinstance(sock, socket.socket):
            return
        with self._lock:
            self._sockets.append(sock)
            expired = self._expired
        if expired:
            _shut(sock)

    def passed(self) -> bool:
        """Whether the deadline has passed."""
        return self._expired or time.monotonic() >= self._deadline

    def message(self, url: str) -> str:
        """What a fetch stopped at its deadline says."""
        return f"{shown(url)}: no whole answer within {self.seconds:g} s; nothing was written"

    def _expire(self) -> None:
        with self._lock:
            self._expired = True
            sockets = list(self._sockets)
        for sock in sockets:
            _shut(sock)


def _shut(sock: socket.socket) -> None:
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass  # closed already


@contextmanager
def open_url(url: str, *, timeout: float = TIMEOUT, total: float | None = None,
             max_redirects: int = MAX_REDIRECTS) -> Iterator[Download]:
    """GET ``url`` (redirects followed up to ``max_redirects``) and yield the response before its body.

    Args:
        timeout: Seconds for connecting and between two reads.
        total: Seconds for the whole fetch, the body included (default :data:`TOTAL_S`).

    Raises:
        BadAddress: ``url`` is not an http(s) address.
        FetchError: no connection, a timeout, the total deadline passed, too many redirects,
            or an HTTP error status.
    """
    import httpx

    url = check_url(url)
    total = TOTAL_S if total is None else total
    timeout = min(timeout, total)
    with _Watchdog(total) as watchdog:
        try:
            with httpx.Client(follow_redirects=True, max_redirects=max_redirects, timeout=httpx.Timeout(timeout),
                              headers={"User-Agent": USER_AGENT}) as client:
                with client.stream("GET", url, extensions={"trace": watchdog.trace}) as response:
                    if response.status_code >= 400:
                        phrase = f" {response.reason_phrase}" if response.reason_phrase else ""
                        raise FetchError(f"{shown(str(response.url))}: the server answered "
                                         f"{response.status_code}{phrase}; nothing was written")
                    if watchdog.passed():
                        raise FetchError(watchdog.message(url))
                    yield Download(response, watchdog, timeout)
        except httpx.TooManyRedirects:
            raise FetchError(f"{shown(url)}: more than {max_redirects} redirects; nothing was written") from None
        except httpx.HTTPError as exc:
            if watchdog.passed():  # the watchdog cut the connection
                raise FetchError(watchdog.message(url)) from None
            if isinstance(exc, httpx.TimeoutException):
                raise FetchError(f"{shown(url)}: no answer within {timeout:g} s; nothing was written") from None
            raise FetchError(f"{shown(url)}: {_reason(exc)}; nothing was written") from None


def _int(text: str | None) -> int | None:
    try:
        return int(text) if text is not None else None
    except ValueError:
        return None


def _filename(disposition: str, url: str) -> str:
    if disposition:
        msg = Message()
        msg["content-disposition"] = disposition
        name = msg.get_filename()
        if name:
            return name.replace("\\", "/").rsplit("/", 1)[-1]
    path = urlsplit(url).path
    return unquote(path.rstrip("/").rsplit("/", 1)[-1])


def _reason(exc: BaseException) -> str:
    text = re.sub(r"\s+", " ", str(exc)).strip()[:160]
    return text or type(exc).__name__
