"""Which rooms the ledger's gap repair looks up in the event store, and when."""

from __future__ import annotations

from hand_ledger.repair import GapRepair


def test_a_room_without_progress_is_due_after_the_bound_and_backs_off_when_nothing_is_missing() -> None:
    repair = GapRepair("sqlite://", after_s=2.0, max_backoff_s=6.0)
    repair.seen("r1", now=100.0)
    repair.seen("r1", now=101.5)  # a held event is not progress
    assert repair.due(now=101.9) == []
    assert repair.due(now=102.0) == ["r1"]
    repair.nothing_missing("r1", now=102.0)  # 4 s
    assert repair.due(now=105.9) == [] and repair.due(now=106.0) == ["r1"]
    repair.nothing_missing("r1", now=106.0)  # 6 s: the cap
    repair.nothing_missing("r1", now=106.0)
    assert repair.due(now=111.9) == [] and repair.due(now=112.0) == ["r1"]


def test_progress_resets_the_clock_and_a_finished_match_is_forgotten() -> None:
    repair = GapRepair("sqlite://", after_s=2.0)
    repair.seen("r1", now=0.0)
    repair.seen("r2", now=0.0)
    repair.progressed("r1", now=1.5)
    assert repair.due(now=2.0) == ["r2"]
    repair.finished("r2")
    assert repair.watched() == ["r1"] and repair.due(now=3.5) == ["r1"]
