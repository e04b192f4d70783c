"""The middle and strong bots: a whole turn planned on the bot's simulated position.

Every move is tried on the simulated position with the engine's ``apply``
before it is kept, so a plan is legal by construction (the legality of a
seat's own moves never depends on hidden cards). A turn:

1. draw: take the pile top only if a plan with it uses the card this turn
   (opens, makes a meld, lays it off) — or, strong, under a take with no
   obligation, if the card builds the hand; else draw from the stock and
   stop (the drawn card is unknown until the next request);
2. meet a take's obligation, open with the best partition (or, strong, keep
   the melds in hand while a one-turn Hand finish is within reach), then
   shed: new melds, lay-offs, joker retrievals that pay;
3. discard the card whose loss costs least (``hand_eval.discard_scores``).

Middle differs from strong by having no lookahead: pairs are not weighed by
the unseen cards that complete them, discards ignore the next seat, takes
need an immediate use, and it never holds melds for a Hand. The expert's
style is strong's with the discard weighed by the hand's potential over the
next draws (``potential.best_discard``, dealt from the belief when the
planner is given the round's history). The styles' table is ``styles.py``.
"""

from __future__ import annotations

from collections.abc import Mapping

from hand_engine import (
    Action, Discard, DrawStock, LayMelds, LayOff, MeldSpec, RetrieveJoker, ReturnTake, RuleViolation,
    TakeDiscard, apply, next_auto_action,
)
from hand_engine import hand_total, is_joker, rank_of, suit_of
from hand_engine import meeting_submissions
from hand_engine import going_out_allowed, has_obligation, pending, threshold
from hand_engine import Candidate, find
from hand_engine import RoundState

from .belief import Belief, BeliefOf
from .hand_eval import (
    DiscardWeights, Partition, by_cover, by_value, discard_scores, left_after, meld_total,
    shed_weight, used_mask,
)
from .hand_finish import should_hold
from .history import History
from .knowledge import Feeds, Knowledge, feeds, fits_table, pair_outs, related
from .lookahead import TOP_K, Lookahead, end_hazard
from .potential import best_discard
from .styles import STYLES, Style  # planner.STYLES, planner.Style: research's seams


def lay(combo) -> LayMelds:
    return LayMelds(tuple(MeldSpec(c.cards, c.declare) for c in combo))


class Planner:
    """A turn in ``level``'s style. Research's seam (defaults: the bots'): ``styles`` the table
    of levels, ``belief`` what the potential deals from, ``feeds`` the next seat's take chance."""

    def __init__(self, state: RoundState, level: str, history: History | None = None,
                 draws: int | None = None, deadline: float | None = None, *,
                 styles: Mapping[str, Style] = STYLES, belief: BeliefOf = Belief.of,
                 feeds: Feeds = feeds) -> None:
        self.history = history
        self.draws = draws  # samples of the potential (None: the style's)
        self.deadline = deadline  # thread CPU clock past which the potential stops sampling
        self.belief_of = belief
        self.feeds = feeds
        self.me = state.turn.seat
        self.style = styles[level]
        self.know = Knowledge.of(state, self.me)
        self.options = state.options
        self.cache: dict = {}
        self.weights = DiscardWeights(outs=self.style.outs, danger=self.style.danger,
                                      closed_shed=self.style.closed_shed, open_shed=self.style.open_shed)

    # ------------------------------------------------------------ helpers
    def _try(self, state: RoundState, action: Action) -> RoundState | None:
        try:
            return apply(state, self.me, action)[0]
        except RuleViolation:
            return None

    def _mine(self, state: RoundState) -> bool:
        return state.result is None and state.turn.seat == self.me

    # ------------------------------------------------------------ the turn
    def plan(self, state: RoundState) -> list[Action]:
        t = state.turn
        if t.opening_discard:
            return [self._discard(state)]
        if t.phase == "draw":
            taken = None if t.took or not state.pile else self._take(state)
            return taken if taken is not None else [DrawStock()]
        return self._play(state)[0]

    def _take(self, state: RoundState) -> list[Action] | None:
        card = state.pile[-1]
        hand = state.seats[self.me].hand
        opened = state.seats[self.me].opened
        if not related(card, hand) and not (opened and fits_table(card, state)):
            return None
        after = self._try(state, TakeDiscard())
        if after is None:
            return None
        actions, end = self._play(after)
        if any(isinstance(a, ReturnTake) for a in actions):
            return None
        won = end.result is not None and end.result.winner in (self.me, self.know.partner)
        used = won or card not in end.seats[self.me].hand
        if not used and self.style.build_takes and not has_obligation(state, self.me):
            used = self._builds(card, hand)
        if not used:
            return None
        if self.style.hold and not won and not opened and self._would_hold(state):
            return None  # a Hand is in reach: only a take that finishes beats holding
        return [TakeDiscard(), *actions]

    def _builds(self, card: int, hand: tuple[int, ...]) -> bool:
        """Strong, no obligation: the card completes a meld or a well-covered pair."""
        if is_joker(card):
            return True
        part_before = Partition.of(hand, self.options)
        part_after = Partition.of((*hand, card), self.options)
        if part_after.value() > part_before.value():
            return True
        return any(pair_outs(card, c, self.know) >= 4 for c in hand if not is_joker(c))

    def _would_hold(self, state: RoundState) -> bool:
        hand = state.seats[self.me].hand
        part = Partition.of(hand, state.options)
        return part.value() >= threshold(state) and should_hold(state, self.me, part, self.know, self.cache)

    def play(self, state: RoundState) -> tuple[list[Action], RoundState]:
        """The rest of the turn after the draw (or a take): the moves and the position after them."""
        return self._play(state)

    def _play(self, state: RoundState) -> tuple[list[Action], RoundState]:
        out: list[Action] = []
        if pending(state.turn):
            step = self._meet(state)
            if step is None:
                if self._try(state, ReturnTake()) is not None:
                    return [ReturnTake(), DrawStock()], state  # cannot happen for our own takes
                step = next_auto_action(state)
            state = self._push(state, step, out)
        if self._mine(state) and not state.turn.discard_only and not state.seats[self.me].opened:
            opening = self._opening(state)
            if opening is not None:
                state = self._push(state, opening, out)
        if self._mine(state) and not state.turn.discard_only and state.seats[self.me].opened:
            state = self._shed(state, out, retrieve=self.style.retrieve)
        if self._mine(state):
            state = self._push(state, self._discard(state), out)
        return out, state

    def _push(self, state: RoundState, action: Action, out: list[Action]) -> RoundState:
        new = self._try(state, action)
        if new is None:
            action = next_auto_action(state)
            new = apply(state, self.me, action)[0]
        out.append(action)
        return new

    # ------------------------------------------------------------ obligations and opening
    def _meet(self, state: RoundState) -> Action | None:
        """The submission meeting the take's obligation that leaves the least in hand."""
        accept, hand = meeting_submissions(state)
        part = Partition.of(hand, state.options)
        card = state.turn.taken
        j = state.options.joker_in_hand
        weight = by_value if not state.seats[self.me].opened else shed_weight(j)
        for first in [c for c in part.cands if card in c.cards] or part.cands:
            _, rest = part.best(weight, first.mask)
            for combo in ((first, *rest), (first,)):
                if accept(combo, used_mask(combo)) and self._try(state, lay(combo)) is not None:
                    return lay(combo)

        def key(combo, used):
            left = left_after(hand, combo)
            return (len(left), hand_total(left, j))

        combo = find(hand, state.options, accept, key, part.cands)
        return lay(combo) if combo else None

    def _opening(self, state: RoundState) -> Action | None:
        o = state.options
        t = state.turn
        hand = state.seats[self.me].hand
        part = Partition.of(hand, o)
        thr = threshold(state)
        must = t.taken if t.taken in hand and o.discard_take == "use_if_opening" else None
        fresh = t.fresh and not t.laid
        out_ok = going_out_allowed(state)
        # a finish this turn (a Hand when fresh)
        cover = part.best(by_cover) if o.going_out == "meld_out_allowed" and out_ok else part.best_keeping_one(by_cover)
        combo = cover[1]
        left = left_after(hand, combo)
        below_ok = not o.hand_needs_threshold and fresh
        if combo and out_ok and len(left) <= 1 and (meld_total(combo) >= thr or below_ok):
            if must is None or must not in left:
                if self._try(state, lay(combo)) is not None:
                    return lay(combo)
        value, best = part.best_keeping_one(by_value)
        if value < thr:
            return None
        if self.style.hold and should_hold(state, self.me, part, self.know, self.cache):
            return None
        _, shed = part.best_keeping_one(shed_weight(o.joker_in_hand))
        for combo in (shed, best):
            if meld_total(combo) >= thr and (must is None or any(must in c.cards for c in combo)):
                if self._try(state, lay(combo)) is not None:
                    return lay(combo)
        return None

    # ------------------------------------------------------------ shedding once open
    def _shed(self, state: RoundState, out: list[Action], retrieve: bool) -> RoundState:
        j = state.options.joker_in_hand
        for _ in range(30):
            if not self._mine(state):
                return state
            hand = state.seats[self.me].hand
            step = self._new_melds(state, hand) or self._lay_off(state, hand)
            if step is None and retrieve:
                step = self._retrieval(state, hand)
            if step is None:
                return state
            if isinstance(step, tuple):  # a retrieval with its follow-up moves
                out.extend(step[0])
                state = step[1]
                continue
            new = self._try(state, step)
            if new is None:
                return state
            out.append(step)
            state = new
        return state

    def _new_melds(self, state: RoundState, hand) -> Action | None:
        part = Partition.of(hand, state.options)
        if not part.cands:
            return None
        _, combo = part.best_keeping_one(shed_weight(state.options.joker_in_hand))
        if combo and self._try(state, lay(combo)) is not None:
            return lay(combo)
        return None

    def _lay_off(self, state: RoundState, hand) -> Action | None:
        j = state.options.joker_in_hand
        order = sorted(hand, key=lambda c: (is_joker(c), -hand_total((c,), j), c))
        for card in order:
            for meld in state.melds:
                action = LayOff(meld.id, (card,))
                if self._try(state, action) is not None:
                    return action
        return None

    def _retrieval(self, state: RoundState, hand):
        """A joker retrieval whose follow-up sheds more than not retrieving."""
        j = state.options.joker_in_hand
        now = hand_total(hand, j)
        for meld in state.melds:
            for joker, rank, suit in meld.stand_ins:
                present = {suit_of(c) for c in meld.cards if not is_joker(c)}
                fits = [c for c in hand if not is_joker(c) and rank_of(c) == rank
                        and (suit_of(c) == suit if suit >= 0 else suit_of(c) not in present)]
                options = [(c,) for c in fits]
                if state.options.set_joker_retrieval == "both_missing" and meld.kind == "set":
                    options += [(a, b) for a in fits for b in fits if a < b and suit_of(a) != suit_of(b)]
                for cards in options:
                    action = RetrieveJoker(meld.id, joker, cards)
                    new = self._try(state, action)
                    if new is None:
                        continue
                    follow: list[Action] = [action]
                    end = self._shed(new, follow, retrieve=False)
                    if not self._mine(end) or hand_total(end.seats[self.me].hand, j) < now - 2:
                        return follow, end
        return None

    # ------------------------------------------------------------ discard
    def _discard(self, state: RoundState) -> Action:
        t = state.turn
        scores = discard_scores(state, self.know, self.weights, self.feeds)
        legal = [(cost, card, danger) for cost, card, danger in scores
                 if card != t.taken and self._try(state, Discard(card)) is not None]
        if not legal:
            return next_auto_action(state)
        if not self.style.lookahead or len(legal) == 1 or len(state.seats[self.me].hand) == 1:
            return Discard(legal[0][1])
        ps = self.style.potential
        if ps is not None and (ps.in_open or not state.seats[self.me].opened):
            belief = self.belief_of(state, self.me, self.history) if self.history is not None else None
            return Discard(best_discard(state, self.me, legal, ps, self.style.lookahead_mix, belief,
                                        self.draws, self.deadline, end_hazard(self.know)))
        top = legal[:TOP_K]
        worth = Lookahead(state, self.me, self.know).values([card for _, card, _ in top])
        best = max(top, key=lambda s: (worth[s[1]] - self.style.lookahead_mix * s[0] - s[2], -s[1]))
        return Discard(best[1])
