"""Quick chat in the room domain (docs/decisions/0025-quick-chat.md): a phrase from a seat
or a signed-in spectator is appended as ``chat_sent`` and shown to every audience as it
is; an unknown phrase is refused; the per-sender rate limit; chat never changes the game
(same match with and without it, a move chosen before a chat is not stale, an away seat
stays away, no bot is asked again); replays leave it out."""

from __future__ import annotations

import asyncio
import pytest

from hand.v1 import room_bus_pb2
from hand_engine import auto_turn, resolve
from hand_ledger.grpc_messages import replay_to_proto
from hand_ledger.replay import check, fold
from hand_table import (
    PHRASES, Chat, ChatSent, Recorded, SeatAway, for_seat, private, spectator_key, Act, BotTurn, Command,
    CreateRoom, JoinRoom, LeaveRoom, StartMatch, RoomError,
)
from hand_wire import decode, encode, command_from_proto, decode_command, encode_command
from hand_room.quick_chat import ChatLimits
from hand_room.settings import AWAY_AFTER_TIMEOUTS, STORE_TIMEOUT_S
from hand_room.turns import TurnTimers
from tests.room_domain_support import Room


def new_match(seats: int = 2, rounds: int = 1, seed: int = 7) -> Room:
    r = Room()
    r.run(CreateRoom("ABCDEF", False, "hand", resolve("hand", {"rounds": rounds, "max_turns": 40}).seated(seats), 30,
                     "host", "p0", "h0", seat_seed="s0"))  # seeds given: two matches deal alike
    for i in range(1, seats):
        r.run(JoinRoom(f"p{i}", f"p{i}", f"h{i}", seat_seed=f"s{i}"))
    r.run(StartMatch(seed=seed), seat=0)
    return r


def play_out(r: Room, chat_every: int = 0) -> None:
    """Both seats play the safe automatic turn; with ``chat_every``, someone chats that often."""
    n = 0
    while r.room.status == "playing":
        state = r.room.round
        seat = state.turn.seat
        for action in auto_turn(state):
            n += 1
            if chat_every and n % chat_every == 0:
                r.run(Chat(PHRASES[n % len(PHRASES)]), seat=(seat + 1) % r.room.n)
                r.run(Chat("hurry_up", spectator="s-watcher"))
            if r.room.bot_controls(seat):
                r.run(BotTurn(seat, state.round_no, state.turn_no, (action,)))
            else:
                r.run(Act(action), seat=seat)
            if r.room.round is not state:
                break


def test_a_phrase_from_a_seat_or_a_spectator_is_appended_and_every_audience_sees_it_as_it_is() -> None:
    r = new_match()
    before = r.room.seq
    d = r.run(Chat("well_played"), seat=1)
    [rec] = d.events
    assert rec.seq == before and rec.event == ChatSent(seat=1, phrase="well_played")
    r.run(Chat("emote_laugh", spectator=spectator_key("r1", "acct-9")))
    assert r.kinds()[-2:] == ["chat_sent", "chat_sent"]
    spectator = r.events[-1].event
    assert spectator.seat is None and spectator.spectator.startswith("s-") and "acct-9" not in spectator.spectator
    for shown in (private(rec), for_seat(rec, 0), for_seat(rec, None)):
        assert shown == rec
    assert decode(encode(r.events[-1])) == r.events[-1]  # what the store and the topics carry
    # a spectator's key is the same in one room and another in every other room
    assert spectator_key("r1", "acct-9") == spectator_key("r1", "acct-9") != spectator_key("r2", "acct-9")


def test_chat_is_allowed_before_the_match_and_refused_once_it_is_over() -> None:
    r = Room()
    r.run(CreateRoom("ABCDEF", False, "hand", resolve("hand", {"rounds": 1}).seated(2), 30, "host", "p0", "h0"))
    r.run(Chat("greeting"), seat=0)
    assert r.kinds()[-1] == "chat_sent"
    r = new_match()
    play_out(r)
    assert r.room.status == "finished"
    with pytest.raises(RoomError) as seat:
        r.run(Chat("good_game"), seat=0)
    with pytest.raises(RoomError) as spectator:
        r.run(Chat("good_game", spectator="s-x"))
    assert (seat.value.code, spectator.value.code) == ("SEAT_TOKEN_EXPIRED", "MATCH_OVER")


@pytest.mark.parametrize("phrase", ["", "shout", "WELL_PLAYED"])
def test_an_unknown_phrase_is_refused_with_its_field_and_nothing_is_appended(phrase: str) -> None:
    r = new_match()
    before = list(r.events)
    with pytest.raises(RoomError) as info:
        r.run(Chat(phrase), seat=0)
    assert info.value.code == "UNKNOWN_PHRASE"
    assert info.value.params["field"] == "phrase" and info.value.params["max"] == len(PHRASES)
    assert r.events == before


def test_a_wire_number_outside_the_set_reaches_the_owner_as_no_phrase_and_is_refused() -> None:
    msg = room_bus_pb2.RoomCommand(room_id="r1", seat=0, chat=room_bus_pb2.ChatCommand(phrase=99))
    cmd = command_from_proto(msg)
    assert cmd.body == Chat("")
    r = new_match()
    with pytest.raises(RoomError) as info:
        r.run(cmd.body, seat=0)
    assert info.value.code == "UNKNOWN_PHRASE"
    sent = Command("r1", Chat("sorry", spectator="s-1"))
    assert decode_command(encode_command(sent)).body == sent.body


def test_who_may_chat_a_seat_that_is_not_a_players_or_a_spectator_without_a_session_may_not() -> None:
    r = new_match()
    for seat, code in [(5, "SEAT_TOKEN_INVALID"), (None, "UNAUTHENTICATED")]:
        with pytest.raises(RoomError) as info:
            r.run(Chat("thanks"), seat=seat)
        assert info.value.code == code


def test_the_rate_limit_allows_a_small_burst_then_one_phrase_every_two_seconds_per_sender() -> None:
    now = [0.0]
    limits = ChatLimits(per_min=30, burst=3, clock=lambda: now[0])
    for _ in range(3):
        limits.take("r1/0")
    with pytest.raises(RoomError) as info:
        limits.take("r1/0")
    assert info.value.code == "RATE_LIMITED"
    assert info.value.params["limit"] == "chat_per_sender" and info.value.params["retry_after_ms"] == 2000
    limits.take("r1/1")  # another sender has its own bucket
    limits.take("r2/0")  # and so has the same seat number in another room
    now[0] += 2.0
    limits.take("r1/0")
    with pytest.raises(RoomError):
        limits.take("r1/0")
    ChatLimits(per_min=0, burst=1).take("r1/0")  # 0: no limit
    for _ in range(100):
        ChatLimits(per_min=0, burst=1).take("r1/0")


def test_chat_never_changes_the_game_the_same_match_is_played_with_and_without_it(monkeypatch) -> None:
    import hand_table.lobby

    monkeypatch.setattr(hand_table.lobby, "new_match_secret", lambda: bytes(32))  # the same room twice
    quiet, chatty = new_match(seats=3), new_match(seats=3)
    play_out(quiet)
    play_out(chatty, chat_every=3)
    chats = chatty.of(ChatSent)
    assert len(chats) > 20
    game = [e.event for e in chatty.events if not isinstance(e.event, ChatSent)]
    assert game == [e.event for e in quiet.events]
    a, b = quiet.room, chatty.room
    assert (a.round, a.match, a.seats, a.status) == (b.round, b.match, b.seats, b.status)
    assert b.seq == a.seq + len(chats)


def test_a_move_chosen_before_a_chat_is_not_stale_but_one_chosen_before_a_move_is() -> None:
    r = new_match()
    state = r.room.round
    seen = r.room.seq
    r.run(Chat("hurry_up"), seat=1 - state.turn.seat)
    r.run(Chat("emote_thinking", spectator="s-a"))
    [first, *_] = auto_turn(state)
    r.run(Act(first, expected_seq=seen), seat=state.turn.seat)  # accepted: only chat came since
    with pytest.raises(RoomError) as info:
        r.run(Act(auto_turn(r.room.round)[0], expected_seq=seen), seat=r.room.round.turn.seat)
    assert info.value.code == "STALE_ACTION"


def test_an_away_player_who_chats_stays_away() -> None:
    r = new_match()
    r.run(LeaveRoom(), seat=1)
    assert r.of(SeatAway) and r.room.seats[1].away
    r.run(Chat("be_right_back"), seat=1)
    assert r.room.seats[1].away and r.kinds()[-1] == "chat_sent"


def test_replays_leave_chat_out_and_the_replay_check_passes_with_chat_in_the_archive() -> None:
    r = new_match()
    play_out(r, chat_every=4)
    archive = [private(e) for e in r.events]
    assert any(isinstance(e.event, ChatSent) for e in archive)
    assert check(archive).ok
    steps = fold(archive)
    reply = replay_to_proto("r1", steps, len(steps) - 1, 0, None, over=True)
    kinds = [e.WhichOneof("event") for e in reply.events]
    assert "chat_sent" not in kinds and "match_ended" in kinds
    assert len(kinds) == len(archive) - len(r.of(ChatSent)) and reply.event_count == len(archive)


class _Store:
    def __init__(self, events: list[Recorded]) -> None:
        self.events = events

    async def load(self, room_id: str, from_seq: int = 0, limit: int | None = None):
        rows = self.events[from_seq:] if limit is None else self.events[from_seq:from_seq + limit]
        return [type("Row", (), {"payload": encode(e)})() for e in rows]


def _timers(store, asked: list[bytes]) -> TurnTimers:
    """Turn timers over ``store`` that record their bot requests in ``asked`` and fire nothing."""
    async def ask(room_id: str, value: bytes) -> None:
        asked.append(value)

    async def fire(cmd: Command) -> None:
        pass

    return TurnTimers(repo=None, store=store, fire=fire, owns=lambda _: True, ask=ask,
                      away_after=AWAY_AFTER_TIMEOUTS.value, store_timeout_s=STORE_TIMEOUT_S.value)


def test_bots_ignore_chat_a_chat_during_a_bots_turn_asks_it_nothing_again() -> None:
    r = new_match()
    seat = r.room.round.turn.seat
    r.run(LeaveRoom(), seat=seat)  # a bot plays the seat
    before = r.room
    r.run(Chat("hurry_up"), seat=1 - seat)
    after = r.room
    asked: list[bytes] = []

    async def run() -> None:
        timers = _timers(_Store(r.events), asked)
        timers.arm(before)
        await asyncio.sleep(0.05)
        timers.arm(after)  # what the owner would do if chat re-armed the room's turn
        await asyncio.sleep(0.05)
        await timers.stop()

    asyncio.run(run())
    assert len(asked) == 1
    history = room_bus_pb2.BotRequest.FromString(asked[0]).history
    assert history and all(e.WhichOneof("event") for e in history)  # the round's engine events only


class _StuckStore(_Store):
    """A store whose reads wait until cancelled (a slow disk, a stopping database)."""

    def __init__(self, events: list[Recorded]) -> None:
        super().__init__(events)
        self.reading = asyncio.Event()
        self.cancelled = 0

    async def load(self, room_id: str, from_seq: int = 0, limit: int | None = None):
        self.reading.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            self.cancelled += 1
            raise


def test_stopped_timers_leave_no_bot_request_reading_the_store() -> None:
    """Turn timers stop before the store closes: a bot request still reading the round's
    history is cancelled and has ended when ``stop`` returns (it was left running, on a
    pooled connection the store's close then left unclosed)."""
    r = new_match()
    r.run(LeaveRoom(), seat=r.room.round.turn.seat)  # a bot plays the seat to move
    asked: list[bytes] = []

    async def run() -> _StuckStore:
        store = _StuckStore(r.events)
        timers = _timers(store, asked)
        timers.arm(r.room)
        await asyncio.wait_for(store.reading.wait(), 5)
        await timers.stop()
        assert store.cancelled == 1 and timers.armed == 0
        await asyncio.sleep(0.05)
        return store

    store = asyncio.run(run())
    assert store.cancelled == 1 and asked == []
