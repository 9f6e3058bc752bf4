"""The tcp transport's mutual proof, sans-I/O: what each end writes and checks, as bytes.

On the tcp transport (Windows; ``REINS_TRANSPORT=tcp`` on POSIX) anyone on the machine can
connect to the host's loopback port, so the port alone proves nothing. The host writes its port
and a fresh 32-byte secret into its endpoint file in the user's private state folder
(``run/PROFILE.tcp``); knowing the secret is what being this user means. On each connection:

1. the client sends one line, ``{"hello": 1, "nonce": N, "time": T, "proof": P}``, with a fresh
   random nonce, its clock in ms and P = MAC(secret, "client", N, T);
2. the host checks it before it reads a request (the proof in constant time; the time within
   ``WINDOW_S`` of its own; the nonce never seen in the window, so a captured hello cannot be
   replayed) and answers ``{"hello": 1, "proof": MAC(secret, "host", N)}``; anything else as
   the first line, or none within the host's wait, closes the connection without a byte;
3. the client checks the host's proof before it sends its request: a process squatting a stale
   port learns a nonce and a proof bound to a dead host's secret, never a request.

The MAC is keyed BLAKE2b (a MAC by design, RFC 7693; the ``person`` field separates the two
directions): ``_blake2`` imports in 0.2 ms, where ``hmac`` with ``hashlib`` costs ~3 ms of
each CLI start (docs/benchmarks.md's way of measuring). Standard library only: the CLI imports
this module when it talks to a tcp host.
"""

from __future__ import annotations

import json
import os
from _blake2 import blake2b
from _operator import _compare_digest as compare_digest

from reins._errors import ConnectionFailure

__all__ = [
    "MAX_HELLO",
    "WINDOW_S",
    "Endpoint",
    "HelloRefused",
    "NonceBook",
    "client_hello",
    "endpoint_bytes",
    "host_reply",
    "host_verified",
    "new_secret",
    "read_endpoint",
    "split_hello",
    "verify_hello",
]

MAX_HELLO = 512  # a hello is ~190 bytes; a longer first line is refused unread
WINDOW_S = 60.0  # how far a hello's time may be from the host's clock
_SECRET_BYTES = 32
_NONCE_BYTES = 16


class HelloRefused(ConnectionFailure):
    """The first line was not a good hello: the host closes the connection without a word."""

    def __init__(self, why: str) -> None:
        super().__init__(f"refused a connection: {why}", code="no_host")


class Endpoint:
    """What a tcp host publishes in its endpoint file. A plain class: `dataclasses` (with the
    `inspect` it imports) would add ~40 ms to each CLI start, a NamedTuple ~1 ms."""

    __slots__ = ("pid", "port", "secret")

    def __init__(self, port: int, pid: int, secret: bytes) -> None:
        self.port = port
        self.pid = pid
        self.secret = secret

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Endpoint) and (self.port, self.pid, self.secret) == (
            other.port,
            other.pid,
            other.secret,
        )

    def __hash__(self) -> int:
        return hash((self.port, self.pid, self.secret))


def new_secret() -> bytes:
    return os.urandom(_SECRET_BYTES)


def endpoint_bytes(endpoint: Endpoint) -> bytes:
    body = {"port": endpoint.port, "pid": endpoint.pid, "secret": endpoint.secret.hex()}
    return json.dumps(body).encode() + b"\n"


def read_endpoint(path: str) -> Endpoint | None:
    """The endpoint file at ``path``, or None when it is missing or not one."""
    try:
        with open(path, "rb") as fh:
            raw = json.loads(fh.read(4096))
        port, pid, secret = raw["port"], raw["pid"], bytes.fromhex(raw["secret"])
    except (OSError, ValueError, TypeError, KeyError):
        return None
    ints = all(isinstance(n, int) and not isinstance(n, bool) for n in (port, pid))
    if not ints or not 0 < port < 65536 or len(secret) != _SECRET_BYTES:
        return None
    return Endpoint(port, pid, secret)


def _mac(secret: bytes, side: bytes, *parts: str) -> str:
    return blake2b("\n".join(parts).encode(), key=secret, person=side, digest_size=32).hexdigest()


def client_hello(secret: bytes, now_ms: int, nonce: str | None = None) -> tuple[str, bytes]:
    """The client's first line and its nonce (kept to check the host's answer)."""
    nonce = nonce if nonce is not None else os.urandom(_NONCE_BYTES).hex()
    proof = _mac(secret, b"reins-client", nonce, str(now_ms))
    line = {"hello": 1, "nonce": nonce, "time": now_ms, "proof": proof}
    return nonce, json.dumps(line).encode() + b"\n"


# What a hello's line is made of: a JSON object of ASCII text (json.dumps, client_hello).
_HELLO_BYTES = frozenset(range(0x20, 0x7F))


def split_hello(buffer: bytes, *, max_size: int = MAX_HELLO) -> tuple[bytes, bytes] | None:
    """The first line and what follows it, or None while it is incomplete; a first line over
    ``max_size`` bytes (or no line within them) is refused, and so, at once, is one that cannot
    become a hello (not a JSON object, or bytes no hello has), rather than at the end of the wait."""
    end = buffer.find(b"\n", 0, max_size + 1)
    line = buffer if end < 0 else buffer[:end]
    if line[:1] not in (b"", b"{") or not _HELLO_BYTES.issuperset(line[: max_size + 1]):
        raise HelloRefused("not a hello")
    if end < 0:
        if len(buffer) > max_size:
            raise HelloRefused(f"no hello within {max_size} bytes")
        return None
    return line, buffer[end + 1 :]


class NonceBook:
    """The nonces of the hellos accepted within the window: a hello is good once. Older ones
    are forgotten, as their time alone refuses them now, so the book stays small."""

    def __init__(self, window_s: float = WINDOW_S) -> None:
        self.window_s = window_s
        self._seen: dict[str, float] = {}

    def admit(self, nonce: str, sent_s: float, now_s: float) -> None:
        if abs(now_s - sent_s) > self.window_s:
            raise HelloRefused("a hello outside the time window")
        for old in [n for n, t in self._seen.items() if now_s - t > 2 * self.window_s]:
            del self._seen[old]
        if nonce in self._seen:
            raise HelloRefused("a replayed hello")
        self._seen[nonce] = now_s


def verify_hello(secret: bytes, line: bytes, book: NonceBook, now_s: float) -> str:
    """The nonce of a good hello line (recorded in ``book``); raises HelloRefused otherwise."""
    try:
        hello = json.loads(line)
    except (ValueError, RecursionError):
        raise HelloRefused("a first line that is not a hello") from None
    if not isinstance(hello, dict) or hello.get("hello") != 1:
        raise HelloRefused("a first line that is not a hello")
    nonce, sent, proof = hello.get("nonce"), hello.get("time"), hello.get("proof")
    if not (isinstance(nonce, str) and isinstance(proof, str) and 16 <= len(nonce) <= 64):
        raise HelloRefused("a hello without its nonce or proof")
    if not isinstance(sent, int) or isinstance(sent, bool):
        raise HelloRefused("a hello without its time")
    expected = _mac(secret, b"reins-client", nonce, str(sent))
    if not compare_digest(expected.encode(), proof.encode("utf-8", "replace")):
        raise HelloRefused("a wrong proof")
    book.admit(nonce, sent / 1000.0, now_s)
    return nonce


def host_reply(secret: bytes, nonce: str) -> bytes:
    return json.dumps({"hello": 1, "proof": _mac(secret, b"reins-host", nonce)}).encode() + b"\n"


def host_verified(secret: bytes, nonce: str, reply: bytes) -> bool:
    """Is ``reply`` (the host's first line, without its newline) the proof for our nonce?"""
    try:
        answer = json.loads(reply)
    except (ValueError, RecursionError):
        return False
    proof = answer.get("proof") if isinstance(answer, dict) else None
    if not isinstance(proof, str):
        return False
    expected = _mac(secret, b"reins-host", nonce)
    return compare_digest(expected.encode(), proof.encode("utf-8", "replace"))
