"""Room discovery's window arithmetic: which rooms are behind, where the cursor may go."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hand_ledger.discovery import Window, RoomDiscovery
from hand_infra.topics import partition_of

OLD = datetime(2026, 1, 1, tzinfo=UTC)
NOW = OLD + timedelta(minutes=1)


def window() -> Window:
    rows = [(1, "a", 0, OLD), (2, "b", 0, OLD), (3, "a", 1, OLD), (4, "b", 1, NOW), (5, "a", 2, OLD)]
    return Window({"a": 2, "b": 1}, rows)


def test_the_cursor_passes_only_a_prefix_of_archived_settled_rows() -> None:
    w = window()
    assert w.cursor_after({"a": 3, "b": 2}, NOW, 0) == 3  # row 4 is too recent: it and all after wait
    assert w.cursor_after({"a": 3, "b": 2}, NOW + timedelta(seconds=1), 0) == 5
    assert w.cursor_after({"a": 1, "b": 2}, NOW + timedelta(seconds=1), 0) == 2  # a's seq 1 not archived
    assert w.cursor_after({}, NOW, 7) == 7  # nothing archived: the cursor stays


def test_rooms_behind_are_those_with_unarchived_events_on_this_replicas_partitions() -> None:
    d = RoomDiscovery()
    w = window()
    every = set(range(4))
    assert d.behind(w, {"a": 3, "b": 1}, every, 4) == ["b"]
    assert d.behind(w, {}, every, 4) == ["a", "b"]
    mine = partition_of("a", 4)
    assert d.behind(w, {}, {mine}, 4) == [r for r in ("a", "b") if partition_of(r, 4) == mine]


def test_a_pass_is_due_once_per_interval() -> None:
    d = RoomDiscovery(interval_s=5)
    assert d.due(100.0) and not d.due(104.0) and d.due(105.0)
