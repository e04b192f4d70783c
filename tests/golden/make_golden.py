"""Generate the golden games of tests/golden/games/ (see tests/golden/README.md).

Each golden game is one seeded random round: ``hand_engine.random_step`` with
``random.Random(seed)`` plays every seat until the round ends. The file
``games/<preset>-<seed>.json`` holds::

    {"record": <hand-record/1>, "final": <hand-position/1 of the final state>,
     "events_digest": <sha256 of the canonical JSON of every event>}

Usage (from the repository root)::

    .venv/bin/python tests/golden/make_golden.py            # rewrite games/ from GAMES
    .venv/bin/python tests/golden/make_golden.py --check    # compare, write nothing
    .venv/bin/python tests/golden/make_golden.py --refresh  # keep the moves, recompute final + digest
    .venv/bin/python tests/golden/make_golden.py --search 300   # look for seeds, print coverage

Only the rules engine decides what a game contains; the games are the
regression oracle for it. An intentional rules change regenerates them (first
command) and the diff is reviewed and committed with the change.
"""

from __future__ import annotations

import argparse
import dataclasses
import enum
import hashlib
import json
import random
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from hand_engine import (
    PRESETS, RoundState, position_to_dict, random_step, record_to_dict, replay_record, resolve,
    start_round,
)
from hand_engine.actions import LayMelds, LayOff

HERE = Path(__file__).resolve().parent
GAMES_DIR = HERE / "games"

#: (preset, seed, seats, round_no): two rounds per preset, chosen with --search
#: so that every preset has a normal finish and the set covers every feature
#: listed in README.md (Hand finish, exhausted, void, joker retrieval, take
#: return, stock rebuild, declared jokers, a second joker on a run, ...).
GAMES: tuple[tuple[str, int, int, int], ...] = (
    ("hand", 105, 2, 1),
    ("hand", 1000, 3, 2),
    ("kout-hand", 4, 3, 1),
    ("kout-hand", 50, 4, 1),
    ("saudi", 60, 2, 1),
    ("saudi", 73, 3, 1),
    ("kout-saudi", 53, 4, 1),
    ("kout-saudi", 1005, 2, 2),
    ("partnership", 39, 4, 1),
    ("partnership", 78, 4, 1),
    ("kout-partnership", 25, 4, 1),
    ("kout-partnership", 50, 4, 1),
    ("saudi-partnership", 13, 4, 1),
    ("saudi-partnership", 94, 4, 1),
    ("kout-saudi-partnership", 53, 4, 1),
    ("kout-saudi-partnership", 115, 4, 1),
    ("eram-hand", 19, 3, 1),
    ("eram-hand", 134, 4, 1),  # exhausted -> void
    ("eram-saudi", 55, 3, 1),
    ("eram-saudi", 267, 2, 1),  # Hand finish
    ("eram-partnership", 42, 4, 1),
    ("eram-partnership", 45, 4, 1),
    ("eram-saudi-partnership", 70, 4, 1),
    ("eram-saudi-partnership", 195, 4, 1),  # exhausted -> void
    ("dananeer", 105, 2, 1),
    ("dananeer", 1010, 4, 1),  # a second joker laid off onto a run
    ("r2019", 65, 3, 1),
    ("r2019", 535, 5, 1),  # exhausted (score as is)
)

#: a game with more moves than this is not kept by --search
MAX_MOVES = 400


# ------------------------------------------------------------------ playing
def play(preset: str, seed: int, seats: int, round_no: int = 1, max_moves: int | None = None):
    """Play one seeded random round: (record, final state, events, moves).

    With ``max_moves`` the round is abandoned (``None`` returned) once longer.
    """
    options = resolve(preset)
    state, events = start_round(options, seats, seed=seed, round_no=round_no)
    first = state
    rng = random.Random(seed)
    moves: list[tuple[int, Any]] = []
    all_events = list(events)
    while state.result is None:
        if max_moves is not None and len(moves) >= max_moves:
            return None
        seat = state.turn.seat
        state, events, action = random_step(state, rng)
        moves.append((seat, action))
        all_events.extend(events)
    record = record_to_dict(options, seats, first.dealer, seed, first.deck, moves, round_no)
    return record, state, tuple(all_events), moves


# ------------------------------------------------------------------ canonical events
#: Event fields added after these games were recorded (provably fair deals, decision 0022): left
#: out while at their defaults (a version-0 deal), so the recorded games keep their digests.
LATER_FIELDS = {"deal_version", "commitment", "seat_seeds"}


def _plain(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)
                if not (f.name in LATER_FIELDS and getattr(value, f.name) == f.default)}
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    if isinstance(value, enum.Enum):
        return value.value
    return value


def canonical_events(events: Iterable[Any]) -> str:
    """Every event as ``{"type": <class name>, <field>: <value>, ...}`` (cards as ids),
    in order, as compact JSON with sorted keys: the text the digest is taken of."""
    items = [{"type": type(e).__name__, **_plain(e)} for e in events]
    return json.dumps(items, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def events_digest(events: Iterable[Any]) -> str:
    return hashlib.sha256(canonical_events(events).encode("ascii")).hexdigest()


def golden_document(record: dict, final: RoundState, events: Sequence[Any]) -> dict[str, Any]:
    return {"record": record, "final": position_to_dict(final), "events_digest": events_digest(events)}


# ------------------------------------------------------------------ file format
def _inline(value: Any) -> bool:
    if isinstance(value, list) and all(not isinstance(v, (list, dict)) for v in value):
        return True
    return not isinstance(value, (list, dict)) or len(json.dumps(value, ensure_ascii=False)) <= 140


def render(value: Any, indent: int = 0) -> str:
    """JSON with one line per move / meld / player: small files, readable diffs."""
    if _inline(value):
        return json.dumps(value, ensure_ascii=False)
    pad, inner = " " * indent, " " * (indent + 1)
    if isinstance(value, list):
        body = ",\n".join(inner + render(v, indent + 1) for v in value)
        return "[\n" + body + "\n" + pad + "]"
    body = ",\n".join(
        f"{inner}{json.dumps(k, ensure_ascii=False)}: {render(v, indent + 1)}" for k, v in value.items()
    )
    return "{\n" + body + "\n" + pad + "}"


def game_path(preset: str, seed: int) -> Path:
    return GAMES_DIR / f"{preset}-{seed}.json"


# ------------------------------------------------------------------ coverage
FEATURES = (
    "normal", "hand", "exhausted", "void", "retrieval", "take_return", "take", "rebuild",
    "layoff", "multi_meld", "declared", "second_joker", "meld_out",
)


def features(record: dict, final: RoundState, events: Sequence[Any], moves) -> set[str]:
    names = {type(e).__name__ for e in events}
    out = {final.result.finish}
    if "JokerRetrieved" in names:
        out.add("retrieval")
    if "TakeReturned" in names:
        out.add("take_return")
    if "DiscardTaken" in names:
        out.add("take")
    if "StockRebuilt" in names:
        out.add("rebuild")
    if "CardsLaidOff" in names:
        out.add("layoff")
    for _, a in moves:
        if isinstance(a, LayMelds) and len(a.melds) > 1:
            out.add("multi_meld")
        if isinstance(a, LayMelds) and any(m.declare for m in a.melds):
            out.add("declared")
        if isinstance(a, LayOff) and a.declare:
            out.add("declared")
    if any(len(m.stand_ins) == 2 for m in final.melds):
        out.add("second_joker")
    if final.result.finish in ("normal", "hand") and not moves[-1][1].__class__.__name__ == "Discard":
        out.add("meld_out")
    return out


def seat_counts(preset: str) -> tuple[int, ...]:
    o = resolve(preset)
    return (4,) if o.partnership else tuple(range(2, o.max_players + 1))


def search(limit: int) -> None:
    """Print, per preset, the shortest seeds that show each feature."""
    found: dict[str, dict[str, tuple[int, int, int]]] = {}
    for preset in sorted(PRESETS):
        counts = seat_counts(preset)
        best: dict[str, tuple[int, int, int]] = {}
        for seed in range(limit):
            n = counts[seed % len(counts)]
            game = play(preset, seed, n, max_moves=MAX_MOVES)
            if game is None:
                continue
            record, final, events, moves = game
            for f in features(record, final, events, moves):
                if f not in best or len(moves) < best[f][2]:
                    best[f] = (seed, n, len(moves))
        found[preset] = best
        print(preset, {f: best[f] for f in FEATURES if f in best}, flush=True)


def coverage_table() -> str:
    rows = ["| file | seats | round | moves | finish | features |", "|---|---|---|---|---|---|"]
    for preset, seed, n, rno in GAMES:
        doc = json.loads(game_path(preset, seed).read_text(encoding="utf-8"))
        record, final, events, moves = play(preset, seed, n, rno)
        fs = sorted(features(record, final, events, moves) - {final.result.finish})
        rows.append(
            f"| `{preset}-{seed}.json` | {n} | {rno} | {len(doc['record']['moves'])} | "
            f"{final.result.finish} | {', '.join(fs)} |"
        )
    return "\n".join(rows)


# ------------------------------------------------------------------ main
def generate(check: bool, refresh: bool = False) -> int:
    GAMES_DIR.mkdir(exist_ok=True)
    wanted = set()
    stale = 0
    for preset, seed, n, rno in GAMES:
        path = game_path(preset, seed)
        if refresh and path.exists():  # keep the stored moves, recompute the rest
            record = json.loads(path.read_text(encoding="utf-8"))["record"]
            final, events = replay_record(record)
        else:
            record, final, events, _ = play(preset, seed, n, rno)
        text = render(golden_document(record, final, events)) + "\n"
        wanted.add(path.name)
        if path.exists() and path.read_text(encoding="utf-8") == text:
            continue
        stale += 1
        print(("differs: " if check else "wrote: ") + path.name)
        if not check:
            path.write_text(text, encoding="utf-8")
    for path in sorted(GAMES_DIR.glob("*.json")):
        if path.name not in wanted:
            stale += 1
            print(("extra: " if check else "removed: ") + path.name)
            if not check:
                path.unlink()
    return 1 if check and stale else 0


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--check", action="store_true", help="compare with games/, write nothing")
    p.add_argument("--search", type=int, metavar="N", help="try seeds 0..N-1 of every preset")
    p.add_argument("--refresh", action="store_true",
                   help="keep each stored record's moves; recompute its final position and digest")
    p.add_argument("--coverage", action="store_true", help="print the README coverage table")
    args = p.parse_args(argv)
    if args.search:
        search(args.search)
        return 0
    if args.coverage:
        print(coverage_table())
        return 0
    return generate(args.check, args.refresh)


if __name__ == "__main__":
    sys.exit(main())
