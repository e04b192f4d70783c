"""A hypothesis state machine plays random moves, legal or not, against the engine.

Illegal moves must raise RuleViolation and change nothing; legal ones must
keep every invariant of docs/rules.md §13. Shrinking yields a minimal bad game.
"""

from __future__ import annotations

from hypothesis import HealthCheck, settings

from tests.scale_support import examples
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from hand_engine import (
    PRESETS, Discard, DrawStock, LayMelds, LayOff, MeldSpec, RetrieveJoker, ReturnTake,
    RuleViolation, TakeDiscard, apply, next_auto_action, resolve, start_round,
)
from hand_engine.search import candidates

from .invariants import check_all


class RandomMoves(RuleBasedStateMachine):
    @initialize(preset=st.sampled_from(sorted(PRESETS)), seed=st.integers(0, 2**32), n=st.integers(2, 5))
    def deal(self, preset: str, seed: int, n: int) -> None:
        options = resolve(preset)
        n = 4 if options.partnership else min(n, options.max_players)
        self.state, self.events = start_round(options, n, seed=seed)

    def _try(self, action, seat: int | None = None) -> None:
        if self.state.result is not None:
            return
        before = hash(self.state)
        seat = self.state.turn.seat if seat is None else seat
        try:
            self.state, self.events = apply(self.state, seat, action)
        except RuleViolation:
            assert hash(self.state) == before

    @rule(take=st.booleans())
    def draw(self, take: bool) -> None:
        self._try(TakeDiscard() if take else DrawStock())

    @rule(i=st.integers(0, 20))
    def discard(self, i: int) -> None:
        hand = self.state.seats[self.state.turn.seat].hand
        self._try(Discard(hand[i % len(hand)]) if hand else Discard(0))

    @rule(data=st.data())
    def lay(self, data) -> None:
        hand = self.state.seats[self.state.turn.seat].hand
        cands = candidates(hand, self.state.options)
        if not cands:
            return
        picked = data.draw(st.lists(st.sampled_from(cands), min_size=1, max_size=4, unique=True))
        self._try(LayMelds(tuple(MeldSpec(c.cards, c.declare) for c in picked)))

    @rule(i=st.integers(0, 30), j=st.integers(0, 20), k=st.integers(1, 2))
    def lay_off(self, i: int, j: int, k: int) -> None:
        if not self.state.melds:
            return
        hand = self.state.seats[self.state.turn.seat].hand
        meld = self.state.melds[i % len(self.state.melds)]
        cards = tuple(hand[(j + x) % len(hand)] for x in range(min(k, len(hand))))
        self._try(LayOff(meld.id, cards))

    @rule(i=st.integers(0, 30), j=st.integers(0, 20))
    def retrieve(self, i: int, j: int) -> None:
        jokered = [m for m in self.state.melds if m.stand_ins]
        if not jokered:
            return
        meld = jokered[i % len(jokered)]
        hand = self.state.seats[self.state.turn.seat].hand
        self._try(RetrieveJoker(meld.id, meld.stand_ins[0][0], (hand[j % len(hand)],)))

    @rule()
    def give_back(self) -> None:
        self._try(ReturnTake())

    @rule(seat=st.integers(0, 4))
    def out_of_turn(self, seat: int) -> None:
        if seat % self.state.n != self.state.turn.seat:
            self._try(DrawStock(), seat=seat % self.state.n)

    @rule()
    def safe_move(self) -> None:
        if self.state.result is None:
            self._try(next_auto_action(self.state))

    @invariant()
    def invariants_hold(self) -> None:
        check_all(self.state, self.events)


RandomMoves.TestCase.settings = settings(
    max_examples=examples(60, 10), stateful_step_count=60, deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
TestRandomMoves = RandomMoves.TestCase
