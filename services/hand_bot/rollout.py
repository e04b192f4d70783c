"""Expert: one candidate plan played out on one sampled position, and the leaf value.

A sampled position is a full perfect-information position (``belief.sample``).
The candidate's actions are applied for the bot's seat; if they stop at a
stock draw the bot's turn is finished by the strong policy (the drawn card
is the sample's). Then every other seat plays its turn with the strong
policy (each from its own hand and the public table of the sample), and
the bot's seat its next turn too (its next draw is the sample's), unless
the round ends first. The leaf is valued for the
bot's side: the real round scores when the round ended, else an estimate of
every seat's round score from its hand (``estimate``). The value is the
opponents' mean (partnership: the other team's) minus the bot's own (its
team's): score points, higher is better.
"""

from __future__ import annotations

from collections.abc import Sequence

from hand_engine import Action, RuleViolation, apply, next_auto_action
from hand_engine import hand_total, is_joker
from hand_engine import threshold
from hand_engine import RoundState

from .hand_eval import Partition, left_after, shed_weight
from .knowledge import pair_completions
from .planner import Planner

#: chance that an open seat goes out before the round ends, by cards left after its melds
P_OUT = {0: 0.9, 1: 0.75, 2: 0.45, 3: 0.25, 4: 0.12}
#: what an open seat that does not go out is expected to keep of its unmelded points
KEEP_SHARE = 0.8
#: a closed seat's expected score once it opens
OPENED_SCORE = 25.0
#: share of an unmelded pair's value counted as if melded
PAIR_CREDIT = 0.5
#: the rollout's policy
POLICY = "strong"
#: the bot's own turns played after the candidate's before the leaf (None: to the round's end)
HORIZON: int | None = 1


def pairs(left: Sequence[int]) -> list[tuple[int, int]]:
    """Disjoint pairs of unmelded naturals that a third card would make a meld (greedy)."""
    out: list[tuple[int, int]] = []
    free = [c for c in left if not is_joker(c)]
    while free:
        a = free.pop(0)
        b = next((x for x in free if pair_completions(a, x)), None)
        if b is not None:
            free.remove(b)
            out.append((a, b))
    return out


def estimate(state: RoundState, seat: int) -> float:
    """A seat's expected round score (penalty points) from its hand and the table.

    Unmelded pairs count as half a meld (their third card may come)."""
    o = state.options
    j = o.joker_in_hand
    s = state.seats[seat]
    part = Partition.of(s.hand, o)
    if s.opened:
        _, combo = part.best_keeping_one(shed_weight(j))
        left = left_after(s.hand, combo)
        near = pairs(left)
        loose = len(left) - 1 - len(near)
        p_out = P_OUT.get(max(0, loose), 0.05)
        dead = hand_total(left, j) - PAIR_CREDIT * sum(hand_total(pr, j) for pr in near)
        return p_out * o.winner_bonus + (1 - p_out) * KEEP_SHARE * dead
    value, combo = part.best()
    left = left_after(s.hand, combo)
    value += PAIR_CREDIT * sum(hand_total(pr, j) + 5 for pr in pairs(left))
    r = min(1.0, value / max(1, threshold(state)))
    p_open = r ** 3
    return (1 - p_open) * o.unopened_penalty + p_open * OPENED_SCORE


def side_value(scores: Sequence[float], me: int, partnership: bool) -> float:
    """Opponents' mean score minus the bot's (partnership: team sums)."""
    n = len(scores)
    if partnership:
        mine = scores[me] + scores[(me + 2) % 4]
        theirs = scores[(me + 1) % 4] + scores[(me + 3) % 4]
        return theirs - mine
    others = [scores[s] for s in range(n) if s != me]
    return sum(others) / len(others) - scores[me]


def leaf_value(state: RoundState, me: int) -> float:
    partnership = state.options.partnership
    r = state.result
    if r is not None:
        if partnership and r.team_scores:
            mine = r.team_scores[me % 2]
            return float(r.team_scores[1 - me % 2] - mine)
        return side_value([s.score for s in r.seats], me, False)
    scores = [estimate(state, s) for s in range(state.n)]
    if partnership and state.n == 4:
        return _team_value(scores, state, me)
    return side_value(scores, me, False)


def _team_value(scores: list[float], state: RoundState, me: int) -> float:
    """Team sums, except that a seat likely to go out (a negative estimate) stands
    for its team alone: its partner's cards are not counted then."""
    def team(a: int) -> float:
        lo = min(scores[a], scores[(a + 2) % 4])
        return lo if lo < 0 else scores[a] + scores[(a + 2) % 4]
    return team((me + 1) % 4) - team(me)


def _act(state: RoundState, seat: int, action: Action) -> RoundState:
    try:
        return apply(state, seat, action)[0]
    except RuleViolation:  # never expected: the planners try every move first
        return apply(state, seat, next_auto_action(state))[0]


def play_turn(state: RoundState) -> RoundState:
    """The mover finishes its turn with the rollout policy."""
    seat = state.turn.seat
    for _ in range(4):  # a draw request, then the rest of the turn
        if state.result is not None or state.turn.seat != seat:
            break
        for action in Planner(state, POLICY).plan(state):
            if state.result is not None or state.turn.seat != seat:
                break
            state = _act(state, seat, action)
    while state.result is None and state.turn.seat == seat:  # safety net
        state = _act(state, seat, next_auto_action(state))
    return state


#: ``rollout``'s default horizon: the module's ``HORIZON`` as it is at the call
MODULE_HORIZON = "module"


def rollout(state: RoundState, me: int, actions: Sequence[Action],
            horizon: int | None | str = MODULE_HORIZON) -> float:
    """The value for ``me`` of playing ``actions`` on sampled position ``state``, played
    on until ``horizon`` own turns more (``None``: to the round's end)."""
    limit = HORIZON if horizon == MODULE_HORIZON else horizon
    for action in actions:
        if state.result is not None or state.turn.seat != me:
            break
        state = _act(state, me, action)
    if state.result is None and state.turn.seat == me:
        state = play_turn(state)
    own = 0
    while state.result is None and (limit is None or own < limit):
        own += state.turn.seat == me  # the other seats, then the bot's own next turn(s)
        state = play_turn(state)
    return leaf_value(state, me)
