"""The stack's metrics agree with its store: ``make run``'s launcher (``python -m hand_run``: broker,
rules, room, bots, ledger, auth, web — one process, one Prometheus endpoint) plays a whole match of
bots; a scrape of ``/metrics`` over HTTP then counts as many moves as the event store holds
``move_made`` events, as many finished matches as ``match_ended`` events, the match's rounds, and
no sample carries a room id, a player id or any other unbounded value as a label."""

from __future__ import annotations

import asyncio
import re
import time
import urllib.request
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from hand_run.process import LocalStack

from .room_support import bots_play_a_match

ID_LIKE = re.compile(r"[0-9a-f]{12,}|.*\d{4,}")  # room ids, player ids, seat tokens, counters as labels


def _scrape(target: str) -> dict[tuple[str, tuple], float]:
    with urllib.request.urlopen(f"http://{target}/metrics", timeout=10) as reply:
        text = reply.read().decode()
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


def _total(samples: dict, name: str, **labels: str) -> float:
    return sum(v for (n, ls), v in samples.items() if n == name and set(labels.items()) <= set(ls))


@pytest.mark.timeout(300)
async def test_a_bot_match_is_counted_as_the_store_holds_it(tmp_path: Path) -> None:
    with LocalStack(tmp_path, env={"HAND_RUN_METRICS_PORT": "0"}) as stack:
        metrics = stack.targets["metrics"]
        room_id, kinds = await bots_play_a_match(stack, tmp_path / "events.db")
        moves, ended, rounds = kinds.count("move_made"), kinds.count("match_ended"), kinds.count("round_scored")
        assert moves > 20 and ended == 1 and rounds == 1
        # the ledger counts what it archives: wait until it has the match's end
        deadline = time.monotonic() + 60
        while _total(_scrape(metrics), "hand_game_matches_finished_total") < 1:
            assert time.monotonic() < deadline, "the ledger did not count the match"
            await asyncio.sleep(0.2)
        samples = _scrape(metrics)
        assert _total(samples, "hand_game_moves_total") == moves
        assert _total(samples, "hand_game_moves_total", origin="bot") == moves  # every seat a bot's
        assert _total(samples, "hand_game_matches_finished_total", preset="hand") == ended
        assert _total(samples, "hand_game_matches_started_total", preset="hand") == 1
        assert _total(samples, "hand_game_rounds_total") == rounds
        assert _total(samples, "hand_rpc_server_requests_total", method="StartMatch", code="OK") == 1
        # every bot move came through hand.room-commands (one answer a turn, a turn one move or more)
        assert 0 < _total(samples, "hand_room_commands_total", kind="BotTurn", path="consumed") <= moves
        for (name, labels), _ in samples.items():
            if name.startswith("hand_"):
                for key, value in labels:
                    assert room_id not in value and not (key != "le" and ID_LIKE.fullmatch(value)), (name, key, value)
