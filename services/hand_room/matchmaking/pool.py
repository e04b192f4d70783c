"""A matchmaking pool: the open tickets of one (preset, seat count), as an event-sourced
aggregate (docs/decisions/0028-matchmaking.md). Pure: no I/O, no clock but the ``now``
the caller passes.

- ``open_ticket`` / ``cancel``: a player's request and its withdrawal (one open ticket per
  player: a second is refused ``TICKET_EXISTS`` — here within the pool; across pools the
  log's ``match_players`` claim does it);
- ``match``: the tables that can be formed now. Oldest ticket first, each ticket's rating
  range widens with its wait (``Schedule``); two tickets fit when each is within the
  other's range; a full table is formed from the closest ratings, and a ticket that has
  waited ``bot_fill_s`` gets whoever fits and bots of a matching level for the rest;
- ``apply``: the one fold of an event onto the pool (loading, and after each append);
- ``snapshot``: the pool's state as one event (``Snapshot``), the log's compaction: folding a
  snapshot then the events after it gives the pool that folding the whole log gives
  (docs/decisions/0028-matchmaking.md, "Compaction").

A player who quit matches recently (``quits``: the ledger's ``recent_quits``, among the
player's latest 10 matches) is held before its ticket is considered at all, by the ladder of
docs/decisions/0027 (``quit_ladder_s``: none for 0–1, then 1, 5, 15, 60 minutes).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from hand_table import RoomError

WAITING, MATCHED, SEATED, CANCELLED = "waiting", "matched", "seated", "cancelled"
#: how long closed tickets stay readable (GetTicket): in the owner's memory, and in a snapshot
KEEP_CLOSED_S = 600.0
#: bot levels by the table's mean rating (ordinal): below each bound, that level
LEVELS = ((5.0, "beginner"), (15.0, "middle"), (25.0, "strong"), (float("inf"), "expert"))


@dataclass(frozen=True)
class Schedule:
    """How ranges widen and when bots fill (``HAND_MATCH_*``: RoomConfig, hand_room.settings)."""

    range_start: float
    range_step: float
    step_s: float
    range_max: float
    bot_fill_s: float
    quit_ladder_s: tuple[float, ...]

    def delay(self, quits: int) -> float:
        """How long a player with ``quits`` recent quits is held (the ladder's last step beyond it)."""
        ladder = self.quit_ladder_s or (0.0,)
        return ladder[min(quits, len(ladder) - 1)]

    def waited(self, ticket: Ticket, now: float) -> float:
        """Time the ticket has counted as waiting (0 during a quitter's delay)."""
        return max(0.0, now - ticket.opened_at - self.delay(ticket.quits))

    def range_at(self, waited: float) -> float:
        steps = int(waited // self.step_s) if self.step_s > 0 else 0
        return min(self.range_max, self.range_start + steps * self.range_step)


@dataclass(frozen=True)
class Ticket:
    ticket_id: str
    player_id: str
    name: str
    rating: float
    token_hash: str
    opened_at: float
    quits: int = 0
    seat_seed: str | None = None
    status: str = WAITING
    group_id: str = ""
    room_id: str = ""
    seat: int | None = None
    closed_at: float = 0.0

    @property
    def open(self) -> bool:
        return self.status in (WAITING, MATCHED)


@dataclass(frozen=True)
class Group:
    """A table formed: its tickets in seat order (seat 0 first, the room's host), then bots."""

    group_id: str
    room_id: str
    tickets: tuple[str, ...]
    bots: int
    level: str
    formed_at: float
    seated: bool = False


# ---------------------------------------------------------------- events
@dataclass(frozen=True)
class Opened:
    ticket: Ticket


@dataclass(frozen=True)
class Cancelled:
    ticket_id: str
    at: float


@dataclass(frozen=True)
class Formed:
    group: Group


@dataclass(frozen=True)
class Seated:
    group_id: str
    at: float


@dataclass(frozen=True)
class Snapshot:
    """The pool's state at this seq: folding it replaces the tickets and groups (the events
    before it may be deleted)."""

    tickets: tuple[Ticket, ...]
    groups: tuple[Group, ...]


Event = Opened | Cancelled | Formed | Seated | Snapshot


@dataclass
class Pool:
    key: str
    preset: str
    seats: int
    seq: int = 0  # the next event's seq in the pool's log
    base: int = 0  # the seq of the latest snapshot folded (0: none); seq - base: the log's length
    tickets: dict[str, Ticket] = field(default_factory=dict)
    groups: dict[str, Group] = field(default_factory=dict)

    def waiting(self) -> list[Ticket]:
        return sorted((t for t in self.tickets.values() if t.status == WAITING), key=lambda t: t.opened_at)

    def unseated(self) -> list[Group]:
        """Tables formed whose room is not built yet (a new owner finishes them)."""
        return sorted((g for g in self.groups.values() if not g.seated), key=lambda g: g.formed_at)

    def of_player(self, player_id: str) -> Ticket | None:
        if not player_id:
            return None
        return next((t for t in self.tickets.values() if t.player_id == player_id and t.open), None)

    def forget_closed(self, before: float) -> None:
        """Drop tickets closed before ``before`` (and their groups) from memory; the log keeps them."""
        gone = {k for k, t in self.tickets.items() if not t.open and t.closed_at < before}
        for k in gone:
            del self.tickets[k]
        for g in [g for g in self.groups.values() if g.seated and not set(g.tickets) - gone]:
            del self.groups[g.group_id]


def pool_key(preset: str, seats: int) -> str:
    return f"mm:{preset}:{seats}"


def snapshot(pool: Pool, closed_before: float | None = None) -> Snapshot:
    """The pool's state as a snapshot; with ``closed_before``, less the tickets closed before it
    and their seated groups (``Pool.forget_closed``: no event ever touches them again)."""
    tickets, groups = dict(pool.tickets), dict(pool.groups)
    if closed_before is not None:
        kept = Pool(pool.key, pool.preset, pool.seats, tickets=tickets, groups=groups)
        kept.forget_closed(closed_before)
    return Snapshot(tuple(tickets.values()), tuple(groups.values()))


def apply(pool: Pool, event: Event) -> None:
    """Fold one event onto the pool (the seq moves on)."""
    if isinstance(event, Snapshot):
        pool.base = pool.seq
    pool.seq += 1
    match event:
        case Snapshot(tickets, groups):
            pool.tickets = {t.ticket_id: t for t in tickets}
            pool.groups = {g.group_id: g for g in groups}
        case Opened(ticket):
            pool.tickets[ticket.ticket_id] = ticket
        case Cancelled(ticket_id, at):
            t = pool.tickets.get(ticket_id)
            if t is not None:
                pool.tickets[ticket_id] = replace(t, status=CANCELLED, closed_at=at)
        case Formed(group):
            pool.groups[group.group_id] = group
            for seat, tid in enumerate(group.tickets):
                t = pool.tickets.get(tid)
                if t is not None:
                    pool.tickets[tid] = replace(t, status=MATCHED, group_id=group.group_id,
                                                room_id=group.room_id, seat=seat)
        case Seated(group_id, at):
            g = pool.groups.get(group_id)
            if g is not None:
                pool.groups[group_id] = replace(g, seated=True)
                for tid in g.tickets:
                    t = pool.tickets.get(tid)
                    if t is not None:
                        pool.tickets[tid] = replace(t, status=SEATED, closed_at=at)


# ---------------------------------------------------------------- decisions
def open_ticket(pool: Pool, ticket: Ticket) -> Opened:
    """One ticket per player at a time: a second is refused (the first keeps its place)."""
    held = pool.of_player(ticket.player_id)
    if held is not None:
        raise RoomError("TICKET_EXISTS", "this player is already waiting for a table",
                        field="player_id", ticket_id=held.ticket_id)
    return Opened(ticket)


def cancel(pool: Pool, ticket_id: str, now: float) -> Cancelled | None:
    """Withdraw a waiting ticket; None when it was cancelled already. A ticket whose table is
    formed cannot be withdrawn (TICKET_SEATED: leave the room instead)."""
    t = pool.tickets.get(ticket_id)
    if t is None:
        raise RoomError("TICKET_NOT_FOUND", "no such ticket", field="ticket_id")
    if t.status == CANCELLED:
        return None
    if t.status != WAITING:
        raise RoomError("TICKET_SEATED", "this ticket has a table already", field="ticket_id",
                        room_id=t.room_id)
    return Cancelled(ticket_id, now)


def level_for(rating: float) -> str:
    return next(name for bound, name in LEVELS if rating < bound)


def match(pool: Pool, now: float, schedule: Schedule, new_ids) -> list[Formed]:
    """The tables to form now. ``new_ids()`` gives a fresh (group id, room id) per table."""
    waiting = [t for t in pool.waiting() if now >= t.opened_at + schedule.delay(t.quits)]
    ranges = {t.ticket_id: schedule.range_at(schedule.waited(t, now)) for t in waiting}
    used: set[str] = set()
    out: list[Formed] = []
    for t in waiting:
        if t.ticket_id in used:
            continue
        fits = [u for u in waiting if u.ticket_id not in used and u.ticket_id != t.ticket_id
                and u.player_id != t.player_id
                and abs(u.rating - t.rating) <= min(ranges[t.ticket_id], ranges[u.ticket_id])]
        fits.sort(key=lambda u: (abs(u.rating - t.rating), u.opened_at))
        if len(fits) >= pool.seats - 1:
            members = [t, *fits[:pool.seats - 1]]
        elif schedule.waited(t, now) >= schedule.bot_fill_s:
            members = [t, *fits]
        else:
            continue
        members.sort(key=lambda m: m.opened_at)
        used.update(m.ticket_id for m in members)
        mean = sum(m.rating for m in members) / len(members)
        group_id, room_id = new_ids()
        out.append(Formed(Group(group_id, room_id, tuple(m.ticket_id for m in members),
                                pool.seats - len(members), level_for(mean), now)))
    return out
