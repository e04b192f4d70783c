"""Seeded request generators and a status counter for ``test_fuzz.py``.

Three kinds of request per RPC, in turn:

- ``garbage``: random bytes sent through a raw (bytes-in, bytes-out) call;
- ``mutated``: a random message, serialized, with some bytes flipped, cut
  or repeated — mostly still a message, often with broken UTF-8 or wire types;
- ``random``: a message built from the descriptor with random, edge and
  oversized values (long strings, long repeated fields, extreme numbers,
  unknown enum values) and, often, values a real server knows (``hints``:
  an existing room id, a valid seat token);
- ``plausible``: the same without oversized values and with the hints most
  of the time (a real position, a small card id), so requests get past the
  door and reach the engine and the stores.

Every call also carries random metadata now and then (a garbage
``authorization``, a garbage ``accept-language``).
"""

from __future__ import annotations

import asyncio
import random
import string
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import grpc
from google.protobuf import message_factory
from google.protobuf.descriptor import Descriptor, FieldDescriptor, MethodDescriptor
from google.protobuf.message import Message
from grpc_status import rpc_status

from hand.v1 import errors_pb2

F = FieldDescriptor
INTS = {F.TYPE_INT32: (-2**31, 2**31 - 1), F.TYPE_SINT32: (-2**31, 2**31 - 1),
        F.TYPE_SFIXED32: (-2**31, 2**31 - 1), F.TYPE_INT64: (-2**63, 2**63 - 1),
        F.TYPE_SINT64: (-2**63, 2**63 - 1), F.TYPE_SFIXED64: (-2**63, 2**63 - 1),
        F.TYPE_UINT32: (0, 2**32 - 1), F.TYPE_FIXED32: (0, 2**32 - 1),
        F.TYPE_UINT64: (0, 2**64 - 1), F.TYPE_FIXED64: (0, 2**64 - 1)}
#: statuses that mean the server did not handle what it was sent
FORBIDDEN = {"UNKNOWN", "INTERNAL", "DATA_LOSS", "UNIMPLEMENTED", "DEADLINE_EXCEEDED", "CANCELLED"}
KINDS = ("garbage", "mutated", "random", "plausible")


def _string(rng: random.Random, calm: bool = False) -> str:
    pick = rng.random() if not calm else 0.5 + rng.random() / 2
    if pick < 0.15:
        return ""
    if pick < 0.3:
        return "".join(rng.choice(string.digits) for _ in range(rng.choice([1, 5, 20, 400, 5000])))
    if pick < 0.4:
        return rng.choice(["٣٤", "هاند", "١٠٠", "0" * 30, "-1", "  ", "𝟙𝟚", "a\x00b", "ß" * 70])
    if pick < 0.5:
        return "x" * rng.choice([127, 128, 129, 256, 257, 10_000, 200_000])
    alphabet = string.printable + "ابتثجحخ٠١٢"
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 40)))


def _scalar(fd: FieldDescriptor, rng: random.Random, hints: Mapping[str, Sequence],
            calm: bool = False) -> object:
    if fd.name in hints and rng.random() < (0.8 if calm else 0.4):
        return rng.choice(hints[fd.name])
    if fd.type in INTS:
        low, high = INTS[fd.type]
        if rng.random() < (0.9 if calm else 0.5):  # card ids, seats, meld ids, seqs: small mostly
            return rng.randrange(max(low, 0), 110)
        return rng.choice([0, 1, 2, 3, 13, 51, 105, 106, 107, 1000, low, high, rng.randint(low, high),
                           max(low, -1)])
    if fd.type == F.TYPE_BOOL:
        return rng.random() < 0.5
    if fd.type in (F.TYPE_DOUBLE, F.TYPE_FLOAT):
        return rng.choice([0.0, -1.0, 1e300 if fd.type == F.TYPE_DOUBLE else 3e38,
                           float("nan"), float("inf"), rng.random()])
    if fd.type == F.TYPE_ENUM:
        numbers = [v.number for v in fd.enum_type.values]
        return rng.choice(numbers + [999, -5])
    if fd.type == F.TYPE_STRING:
        return _string(rng, calm)
    return rng.randbytes(rng.choice([0, 1, 16] if calm else [0, 1, 16, 300, 5000]))


def random_message(desc: Descriptor, rng: random.Random, hints: Mapping[str, Sequence],
                   depth: int = 0, calm: bool = False) -> Message:
    msg = message_factory.GetMessageClass(desc)()
    for fd in desc.fields:
        if rng.random() < ((0.2 if depth else 0.1) if calm else (0.35 if depth else 0.75)):
            continue
        if fd.is_repeated:
            if calm:
                count = rng.choice([0, 1, 1, 2, 3])
            else:
                count = rng.choice([0, 1, 2, 3, 5, 14, 106]) if rng.random() < 0.95 else rng.choice([257, 2000])
            if fd.message_type is not None and fd.message_type.GetOptions().map_entry:
                key_fd, value_fd = fd.message_type.fields_by_name["key"], fd.message_type.fields_by_name["value"]
                target = getattr(msg, fd.name)
                for _ in range(min(count, 20)):
                    key = _scalar(key_fd, rng, hints, calm)
                    if value_fd.message_type is not None:
                        target[key].CopyFrom(random_message(value_fd.message_type, rng, hints, depth + 1, calm))
                    else:
                        target[key] = _scalar(value_fd, rng, hints, calm)
            elif fd.message_type is not None:
                items = getattr(msg, fd.name)
                for _ in range(count if depth < 3 else min(count, 2)):
                    items.add().CopyFrom(random_message(fd.message_type, rng, hints, depth + 1, calm))
            else:
                getattr(msg, fd.name).extend(_scalar(fd, rng, hints, calm) for _ in range(count))
        elif fd.message_type is not None:
            if fd.name in hints and rng.random() < (0.95 if calm else 0.6):  # e.g. a real position
                getattr(msg, fd.name).CopyFrom(rng.choice(hints[fd.name]))
            elif depth < 5:
                getattr(msg, fd.name).CopyFrom(random_message(fd.message_type, rng, hints, depth + 1, calm))
        else:
            setattr(msg, fd.name, _scalar(fd, rng, hints, calm))
    return msg


def _mutate(raw: bytes, rng: random.Random) -> bytes:
    data = bytearray(raw or b"\x00")
    for _ in range(rng.randint(1, 8)):
        pick, at = rng.random(), rng.randrange(len(data))
        if pick < 0.5:
            data[at] = rng.randrange(256)
        elif pick < 0.7:
            del data[at:at + rng.randint(1, 16)]
        elif pick < 0.85:
            data[at:at] = rng.randbytes(rng.randint(1, 16))
        else:
            data[at:at] = bytes([0xFF, 0xFE, 0x80])  # invalid UTF-8 / varint soup
        if not data:
            data = bytearray(b"\x0a")
    return bytes(data)


def _metadata(rng: random.Random, hints: Mapping[str, Sequence]) -> tuple[tuple[str, str], ...]:
    out: list[tuple[str, str]] = []
    if rng.random() < 0.3:
        choices = list(hints.get("authorization", ())) + [
            "Bearer " + "".join(rng.choice(string.ascii_letters + ".-_") for _ in range(rng.randint(0, 3000))),
            "Basic abc", "Bearer", "bearer a.b.c"]
        out.append(("authorization", rng.choice(choices)))
    if rng.random() < 0.2:
        out.append(("accept-language", rng.choice(["ar", "ar-SA,en;q=0.8", "q=;;,,", "en;q=x", "x" * 4000])))
    return tuple(out)


@dataclass
class Tally:
    """Statuses by (method, kind), plus the refusals that came without a RuleError detail."""

    counts: Counter = field(default_factory=Counter)
    bare: Counter = field(default_factory=Counter)
    samples: dict = field(default_factory=dict)

    def record(self, method: str, kind: str, code: grpc.StatusCode, error: grpc.aio.AioRpcError | None,
               request: object) -> None:
        self.counts[(method, kind, code.name)] += 1
        if code.name in FORBIDDEN:
            self.samples.setdefault((method, code.name), (kind, repr(request)[:300],
                                                          error.details() if error else ""))
        if error is not None and code not in (grpc.StatusCode.RESOURCE_EXHAUSTED,) \
                and code.name not in FORBIDDEN:
            status = rpc_status.from_call(error)
            has_detail = status is not None and any(
                d.Is(errors_pb2.RuleError.DESCRIPTOR) for d in status.details)
            if not has_detail:
                self.bare[(method, code.name)] += 1
                self.samples.setdefault((method, "bare " + code.name), (kind, repr(request)[:300],
                                                                        error.details()))

    def per_method(self) -> dict[str, Counter]:
        out: dict[str, Counter] = {}
        for (method, _kind, code), n in self.counts.items():
            out.setdefault(method, Counter())[code] += n
        return out

    def forbidden(self) -> dict[tuple[str, str, str], int]:
        return {key: n for key, n in self.counts.items() if key[2] in FORBIDDEN}

    def table(self) -> str:
        lines = []
        for method, codes in sorted(self.per_method().items()):
            lines.append(f"{method}: " + ", ".join(f"{c} {n}" for c, n in sorted(codes.items())))
        return "\n".join(lines)


def fuzz_body(method: MethodDescriptor, kind: str, rng: random.Random, hints: Mapping[str, Sequence]) -> bytes:
    """The bytes of one fuzzed request of ``kind`` (one of ``KINDS``) for ``method``."""
    if kind == "garbage":
        return rng.randbytes(rng.choice([1, 2, 7, 64, 1000, 20_000]))
    body = random_message(method.input_type, rng, hints, calm=kind == "plausible").SerializeToString()
    return _mutate(body, rng) if kind == "mutated" else body


async def fuzz_method(channel: grpc.aio.Channel, method: MethodDescriptor, requests: int,
                      rng: random.Random, hints: Mapping[str, Sequence], tally: Tally,
                      concurrency: int = 8, timeout_s: float = 20.0) -> None:
    """Send ``requests`` fuzzed requests to ``method``, recording every status in ``tally``."""
    path = f"/{method.containing_service.full_name}/{method.name}"
    if method.server_streaming:
        raw = channel.unary_stream(path)
    else:
        raw = channel.unary_unary(path)
    plans = []
    for i in range(requests):
        kind = KINDS[i % len(KINDS)]
        plans.append((kind, fuzz_body(method, kind, rng, hints), _metadata(rng, hints)))
    gate = asyncio.Semaphore(concurrency)

    async def one(kind: str, body: bytes, metadata) -> None:
        async with gate:
            try:
                if method.server_streaming:
                    call = raw(body, metadata=metadata, timeout=timeout_s)
                    try:
                        await asyncio.wait_for(call.read(), 1.0)  # first message (or the refusal)
                        code, error = grpc.StatusCode.OK, None
                    except asyncio.TimeoutError:
                        code, error = grpc.StatusCode.OK, None  # open and quiet: a legitimate watch
                    finally:
                        call.cancel()
                else:
                    await raw(body, metadata=metadata, timeout=timeout_s)
                    code, error = grpc.StatusCode.OK, None
            except grpc.aio.AioRpcError as exc:
                code, error = exc.code(), exc
            tally.record(method.name, kind, code, error, body[:200])

    await asyncio.gather(*(one(*plan) for plan in plans))
