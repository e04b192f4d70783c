"""Golden games: replaying each stored hand-record/1 gives exactly the stored
final position and the same events (README.md).

A failure means the engine now plays a recorded round differently. If that is
an intentional rules change, regenerate the games::

    .venv/bin/python tests/golden/make_golden.py

and review the diff; otherwise it is a regression.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hand_engine import (
    parse_card, position_from_dict, position_to_dict, record_to_dict, replay_record,
)
from hand_engine.notation import action_from_dict, options_from_dict

from .make_golden import GAMES, GAMES_DIR, events_digest, game_path

FILES = sorted(GAMES_DIR.glob("*.json"))


def _load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def test_every_listed_game_is_stored_and_nothing_else() -> None:
    assert sorted(p.name for p in FILES) == sorted(game_path(p, s).name for p, s, _, _ in GAMES)


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_replay_gives_the_stored_final_position_and_events(path: Path) -> None:
    doc = _load(path)
    final, events = replay_record(doc["record"])
    assert final.result is not None, "a golden game is a finished round"
    assert position_to_dict(final) == doc["final"]
    assert position_from_dict(doc["final"]) == final
    assert events_digest(events) == doc["events_digest"]


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_record_round_trips(path: Path) -> None:
    """record_to_dict(parsed record) is the stored record, key for key."""
    rec = _load(path)["record"]
    moves = [(m["seat"], action_from_dict(m)) for m in rec["moves"]]
    again = record_to_dict(
        options_from_dict(rec["options"]), rec["seats"], rec["dealer"], rec["seed"],
        [parse_card(c) for c in rec["deck"]], moves, rec["round"],
    )
    assert again == rec


def test_goldens_cover_every_preset_and_finish() -> None:
    from hand_engine import PRESETS

    by_game = {(p, s): _load(game_path(p, s)) for p, s, _, _ in GAMES}
    docs = list(by_game.values())
    presets = {p for p, _ in by_game}
    assert presets == set(PRESETS)
    normal = {p for (p, _), d in by_game.items() if d["final"]["result"]["finish"] == "normal"}
    assert normal == presets, f"presets without a normal finish: {sorted(presets - normal)}"
    finishes = {d["final"]["result"]["finish"] for d in docs}
    assert finishes == {"normal", "hand", "exhausted", "void"}
    kinds = {m["action"] for d in docs for m in d["record"]["moves"]}
    assert kinds == {
        "draw_stock", "take_discard", "return_take", "lay_melds", "lay_off", "retrieve_joker", "discard",
    }
