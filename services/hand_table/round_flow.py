"""A round's flow through the rules port: one move and the round's end (scoring, the next deal,
the match's end), the automatic turn (§11), a bot's moves."""

from __future__ import annotations

import secrets

from hand_engine import Action, DealSeeds, RoundEnded, RuleViolation, next_deal, standings

from .commands import BotTurn
from .events import MatchEnded, MoveMade, RoundDealt, RoundScored
from .outcome import Decision
from .ports import RulesPort
from .room import Room

FAIR_DEAL_VERSION = 1  # MatchStarted.deal_version of a match started without a fixed seed


def answered_before_a_move(room: Room, body: BotTurn) -> bool:
    """A move came after the ask this answers (its copy, or an older ask's answer)."""
    return body.asked_seq is not None and room.moved_seq >= body.asked_seq


async def bot_moves(d: Decision, rules: RulesPort, seat: int, actions: tuple[Action, ...]) -> None:
    for action in actions:
        try:
            if not await move(d, rules, seat, action, "bot"):
                return
        except RuleViolation:
            await auto_turn(d, rules, seat)  # never leave a bot's seat stuck
            return


async def auto_turn(d: Decision, rules: RulesPort, seat: int) -> None:
    """The §11 safe automatic turn for ``seat``."""
    for action in await rules.auto_turn(d.room.round):
        if not await move(d, rules, seat, action, "timer"):
            return


async def deal(d: Decision, rules: RulesPort) -> None:
    room = d.room
    dealer, round_no = next_deal(room.match)
    fair = None
    if room.deal_version >= FAIR_DEAL_VERSION:  # a fresh secret per round, committed in round_started
        fair = DealSeeds(secrets.token_bytes(32), tuple(s.seat_seed for s in room.seats))
    state, events = await rules.start_round(room.options, room.n, seed=room.match.seed, dealer=dealer,
                                            round_no=round_no, fair=fair)
    d.add(RoundDealt(round_no=state.round_no, dealer=state.dealer, deck=state.deck, events=tuple(events),
                     server_seed=fair.server_seed if fair else b""))


async def move(d: Decision, rules: RulesPort, seat: int, action: Action, origin: str) -> bool:
    """Apply one move (RuleViolation if refused); handle the round's end.
    True while the same seat's turn goes on."""
    before = d.room.round
    state, events = await rules.apply(before, seat, action)
    d.add(MoveMade(seat=seat, action=action, origin=origin, round_no=state.round_no,
                   turn_no=state.turn_no, events=tuple(events)), after=state)
    if state.result is None:
        return state.turn.seat == seat and state.turn_no == before.turn_no
    result = next(e for e in events if isinstance(e, RoundEnded)).result
    d.add(RoundScored(round_no=state.round_no, result=result, server_seed=d.room.server_seed))  # the reveal
    match = d.room.match
    if match.over:
        d.add(MatchEnded(winners=tuple(match.winners), standings=tuple(standings(match))))
    else:
        await deal(d, rules)
    return False
