"""The pool log's compaction, pure (hand_room/matchmaking/pool.py ``snapshot``, log.py's codec;
docs/decisions/0028-matchmaking.md, "Compaction"): folding a snapshot of the first events,
through its JSON row, then the rest gives the pool that folding the whole log gives."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from hand_room.matchmaking.log import decode, encode
from hand_room.matchmaking.pool import (
    Cancelled, Formed, Group, Opened, Pool, Schedule, Seated, Snapshot, Ticket, apply, cancel, match, open_ticket,
    snapshot,
)

KEY = "mm:hand:2"
SCHEDULE = Schedule(range_start=2, range_step=2, step_s=5, range_max=10, bot_fill_s=30, quit_ladder_s=(0, 0, 60))
IDS = [f"t{i}" for i in range(6)]

floats = st.floats(min_value=0, max_value=1e6, allow_nan=False)
tickets = st.builds(
    Ticket, ticket_id=st.sampled_from(IDS), player_id=st.sampled_from(["", "p1", "guest:p2", "p3"]),
    name=st.text(max_size=4), rating=st.floats(-50, 50, allow_nan=False), token_hash=st.text(max_size=4),
    opened_at=floats, quits=st.integers(0, 5), seat_seed=st.none() | st.text(max_size=3),
    status=st.sampled_from(["waiting", "matched", "seated", "cancelled"]), group_id=st.sampled_from(["", "g1"]),
    room_id=st.text(max_size=3), seat=st.none() | st.integers(0, 3), closed_at=floats)
groups = st.builds(
    Group, group_id=st.sampled_from(["g0", "g1", "g2"]), room_id=st.text(max_size=3),
    tickets=st.lists(st.sampled_from(IDS), max_size=3, unique=True).map(tuple), bots=st.integers(0, 3),
    level=st.sampled_from(["beginner", "expert"]), formed_at=floats, seated=st.booleans())
#: any events at all, sensible or not: the fold must be the same either way
events = st.one_of(
    st.builds(Opened, tickets),
    st.builds(Cancelled, st.sampled_from(IDS), floats),
    st.builds(Formed, groups),
    st.builds(Seated, st.sampled_from(["g0", "g1", "g2"]), floats),
)


def _fold(evs, pool: Pool | None = None) -> Pool:
    pool = pool or Pool(KEY, "hand", 2)
    for e in evs:
        apply(pool, e)
    return pool


def _through_the_log(snap: Snapshot, seq: int) -> Pool:
    """What ``PoolLog.load`` does with a snapshot row at ``seq``: its JSON, decoded and folded."""
    kind, payload = encode(snap)
    pool = Pool(KEY, "hand", 2, seq=seq)
    apply(pool, decode(kind, payload))
    return pool


def _state(pool: Pool) -> tuple:
    return pool.tickets, pool.groups


@settings(max_examples=300, deadline=None)
@given(st.lists(events, max_size=40), st.data())
def test_a_snapshot_and_the_tail_fold_to_the_whole_logs_pool(evs, data) -> None:
    k = data.draw(st.integers(0, len(evs)), label="snapshot after")
    whole = _fold(evs)
    compacted = _fold(evs[k:], _through_the_log(snapshot(_fold(evs[:k])), seq=k))
    assert _state(compacted) == _state(whole)
    assert compacted.seq == whole.seq + 1  # the snapshot row takes a seq
    assert compacted.base == k


@settings(max_examples=100, deadline=None)
@given(st.lists(events, max_size=30), st.lists(st.integers(0, 30), min_size=1, max_size=4, unique=True))
def test_snapshots_of_snapshots_fold_the_same(evs, cuts) -> None:
    """Several compactions in a row: each snapshot folds the previous one and what followed."""
    whole = _fold(evs)
    pool, done = Pool(KEY, "hand", 2), 0
    for cut in sorted(c for c in cuts if c <= len(evs)):
        pool = _fold(evs[done:cut], pool)
        pool = _through_the_log(snapshot(pool), seq=pool.seq)
        done = cut
    pool = _fold(evs[done:], pool)
    assert _state(pool) == _state(whole)


# ------------------------------------------------- valid histories, closed tickets left out
@st.composite
def histories(draw) -> list[tuple[float, str, int]]:
    """(time, action, ticket number) — opened, cancelled, matched and seated by the pool's own rules."""
    steps, now = [], 0.0
    for _ in range(draw(st.integers(0, 60))):
        now += draw(st.floats(0, 200, allow_nan=False))
        action = draw(st.sampled_from(["open", "open", "cancel", "match", "seat"]))
        steps.append((now, action, draw(st.integers(0, 20))))
    return steps


def _play(steps) -> list:
    """The events of a history, decided as the matchmaker decides them."""
    pool, out, n, ids = Pool(KEY, "hand", 2), [], itertools.count(), itertools.count()
    for now, action, i in steps:
        evs: list = []
        if action == "open":
            j = next(n)
            player = f"p{j % 7}"
            if pool.of_player(player) is None:
                evs = [open_ticket(pool, Ticket(f"t{j}", player, "P", float(j % 9), "h", now))]
        elif action == "cancel" and (waiting := pool.waiting()):
            evs = [e for e in [cancel(pool, waiting[i % len(waiting)].ticket_id, now)] if e]
        elif action == "match":
            evs = match(pool, now, SCHEDULE, lambda: (f"g{next(ids)}", f"r{next(ids)}"))
        elif action == "seat" and (unseated := pool.unseated()):
            evs = [Seated(unseated[i % len(unseated)].group_id, now)]
        for e in evs:
            apply(pool, e)
        out += [(now, e) for e in evs]
    return out


@settings(max_examples=200, deadline=None)
@given(histories(), st.data(), st.floats(0, 2000, allow_nan=False))
def test_a_snapshot_leaving_out_long_closed_tickets_changes_nothing_after_the_owner_forgets(
        steps, data, keep) -> None:
    timed = _play(steps)
    evs = [e for _, e in timed]
    k = data.draw(st.integers(0, len(evs)), label="snapshot after")
    now = timed[k - 1][0] if k else 0.0
    whole = _fold(evs)
    compacted = _fold(evs[k:], _through_the_log(snapshot(_fold(evs[:k]), now - keep), seq=k))
    # what the owner acts on is the same: waiting tickets, unseated tables, a player's open ticket
    assert compacted.waiting() == whole.waiting()
    assert compacted.unseated() == whole.unseated()
    assert {t.ticket_id: t for t in compacted.tickets.values() if t.open} == {
        t.ticket_id: t for t in whole.tickets.values() if t.open}
    # and once the owner forgets what closed before the horizon, the whole of it
    for pool in (whole, compacted):
        pool.forget_closed(now - keep)
    assert _state(compacted) == _state(whole)
    # a ticket closed within the horizon is still there (GetTicket answers for it)
    assert all(t.ticket_id in compacted.tickets for t in whole.tickets.values() if t.closed_at >= now - keep)


def test_the_snapshot_row_round_trips() -> None:
    t = Ticket("t1", "p1", "P", 1.5, "h", 3.25, quits=2, seat_seed="s", status="matched", group_id="g", room_id="r",
               seat=1, closed_at=0.0)
    g = Group("g", "r", ("t0", "t1"), 1, "middle", 4.0, seated=False)
    snap = Snapshot((t,), (g,))
    assert decode(*encode(snap)) == snap
