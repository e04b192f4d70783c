"""``python -m hand_verify --ledger HOST:PORT ROOM_ID`` or ``python -m hand_verify --events FILE``.

Prints one line per round (verdict, version, commitment, revealed seed, moves,
rebuilds; for hand-deal/2 the room's match commitment and revealed match secret;
what differs) and exits 0 when every round is verified, 1 when one
fails, 2 when one is pending or unverifiable (or the record cannot be read).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Sequence

from google.protobuf import json_format

from hand.v1 import room_events_pb2
from hand_table import DealCheck, Recorded, for_seat, verify_deals
from hand_wire import from_proto


async def _from_ledger(address: str, room_id: str) -> list[Recorded]:
    import grpc

    from hand.v1 import ledger_service_pb2 as lpb
    from hand.v1 import ledger_service_pb2_grpc as lpb_grpc

    async with grpc.aio.insecure_channel(address) as channel:
        reply = await lpb_grpc.LedgerServiceStub(channel).GetReplay(lpb.GetReplayRequest(room_id=room_id))
    return [from_proto(e) for e in reply.events]


def _from_file(path: str) -> list[Recorded]:
    with open(path, encoding="utf-8") as f:
        return [from_proto(json_format.Parse(line, room_events_pb2.RoomEvent()))
                for line in f if line.strip()]


def report(checks: Sequence[DealCheck]) -> tuple[str, int]:
    """The printed lines and the exit status."""
    lines = []
    for c in checks:
        line = (f"round {c.round_no}: {c.verdict} (hand-deal/{c.deal_version}) commitment "
                f"{c.commitment.hex() or '-'} server seed {c.server_seed.hex() or '-'} "
                f"moves {c.moves} rebuilds {c.rebuilds}")
        if c.deal_version >= 2:
            line += (f" match commitment {c.match_commitment.hex() or '-'} "
                     f"match secret {c.match_secret.hex() or '- (revealed when the match ends)'}")
        if c.mismatch:
            line += f" — {c.mismatch}" + (f" (seq {c.mismatch_seq})" if c.mismatch_seq is not None else "")
        lines.append(line)
    verdicts = {c.verdict for c in checks}
    status = 1 if "failed" in verdicts else 0 if verdicts == {"verified"} else 2
    return "\n".join(lines) or "no round dealt", status


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m hand_verify", description=__doc__.splitlines()[0])
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--ledger", metavar="HOST:PORT", help="the ledger to fetch the room's events from")
    source.add_argument("--events", metavar="FILE", help="RoomEvent messages, one JSON object a line")
    parser.add_argument("room_id", nargs="?", help="the room (with --ledger)")
    args = parser.parse_args(argv)
    try:
        if args.ledger:
            if not args.room_id:
                parser.error("--ledger needs a room id")
            records = asyncio.run(_from_ledger(args.ledger, args.room_id))
        else:
            records = _from_file(args.events)
        # the public record: whatever the source, the check uses only what a spectator sees
        text, status = report(verify_deals(for_seat(r, None) for r in records))
    except Exception as exc:  # unreadable input or an unreachable ledger: said plainly, status 2
        print(f"cannot verify: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2
    print(text)
    return status


if __name__ == "__main__":
    sys.exit(main())
