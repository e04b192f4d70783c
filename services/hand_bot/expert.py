"""The expert bot: its own planner (strong's, with discards weighed by the
hand's potential over draws dealt from its belief: ``potential.py``), and
determinized search (perfect-information Monte Carlo) over the hidden cards
for the decisions the potential does not weigh, with the strong planner as
rollout policy and (through ``rollout.estimate``) leaf evaluator.

A decision:

1. candidates: the expert planner's plan (``BASE``) first, then a few
   alternatives a strong player would weigh — in the draw phase the other
   draw (take the pile top and plan the turn with it / draw from the stock);
   in the play phase middle's plan (open at once instead of holding for a
   Hand) and strong's plan (its one-draw lookahead's discard);
2. samples: hidden hands and stock dealt from the belief (``belief.Belief``:
   public counts, cards known to be held, takes, passes and discards of the
   round's history), one ``random.Random`` seeded by the decision's seed;
3. every candidate is played out on every sample (the same samples for all
   candidates: common random numbers) by ``rollout.rollout``;
4. an alternative replaces the base plan only if its mean paired gain over
   it exceeds ``MARGIN`` points and ``SE_FACTOR`` standard errors; else the base plan.

Budget (``Budget``, per level): the potential's samples (``draws``), rollouts
and CPU milliseconds of the deciding thread. The potential may use
``POTENTIAL_SHARE`` of the CPU budget; whole rollout samples are then added
while both caps allow one more (the next sample's cost estimated by the mean
so far), at least two. A decision depends only on (perspective, history,
seed) when the count caps end it, so it replays exactly; the CPU cap bounds
latency (a search it ends depends on the machine's speed; docs/bots.md).
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass

from hand_engine import Action, Discard, DrawStock, ReturnTake, RuleViolation, TakeDiscard, apply
from hand_engine import RoundState

from .belief import Belief, BeliefOf
from .history import History
from .planner import Planner
from .rollout import rollout

#: points an alternative must gain on average over the base plan (with SE_FACTOR: decision 0016)
MARGIN = 4.0
#: standard errors of the paired gain an alternative must clear
SE_FACTOR = 3.0
#: the planner style of the expert's own plan (``planner.STYLES``)
BASE = "expert"
#: share of the CPU budget the base plan's potential may use before the rollouts
POTENTIAL_SHARE = 0.6
#: weigh strong's plan (its one-draw lookahead's discard) beside the base plan in the play phase
STRONG_ALTERNATIVE = True


@dataclass(frozen=True)
class Budget:
    rollouts: int | None  # candidate × sample play-outs (None: no limit)
    cpu_ms: float | None  # CPU time of the deciding thread (None: no limit)
    draws: int | None = 32  # samples of the next draws weighing the base plan's discard (None: the CPU cap's)


#: the expert level's default budget (docs/bots.md: p99 per decision ≤ 250 ms). The sample
#: and rollout caps end about 98 % of decisions on this machine, so those replay exactly;
#: the CPU cap ends the slowest (a decision it stops depends on the host's speed).
DEFAULT_BUDGET = Budget(rollouts=16, cpu_ms=230.0, draws=64)


@dataclass
class SearchResult:
    plan: list[Action]
    candidates: int
    samples: int
    gains: list[float]  # mean paired gain of each candidate over the base plan


def _try(state: RoundState, action: Action) -> RoundState | None:
    try:
        return apply(state, state.turn.seat, action)[0]
    except RuleViolation:
        return None


def _replay(state: RoundState, actions: list[Action]) -> RoundState | None:
    for a in actions:
        state = _try(state, a)
        if state is None:
            return None
    return state


def _take_plan(state: RoundState, history: History | None, draws: int | None,
               deadline: float | None) -> list[Action] | None:
    """Take the pile top and plan the rest of the turn with it (the expert's planner)."""
    after = _try(state, TakeDiscard())
    if after is None:
        return None
    actions, _ = Planner(after, BASE, history, draws, deadline).play(after)
    if any(isinstance(a, ReturnTake) for a in actions):
        return None
    return [TakeDiscard(), *actions]


def candidates(state: RoundState, history: History | None = None, draws: int | None = None,
               deadline: float | None = None) -> list[list[Action]]:
    """The expert planner's plan, then the alternatives (distinct, legal on ``state``).

    ``draws``, ``deadline``: the base planner's potential samples and CPU deadline."""
    t = state.turn
    base = Planner(state, BASE, history, draws, deadline).plan(state)
    out = [base]
    if t.opening_discard:
        out.append(Planner(state, "strong").plan(state))
    elif t.phase == "draw":
        if base and isinstance(base[0], TakeDiscard):
            out.append([DrawStock()])
        elif state.pile and not t.took:
            take = _take_plan(state, history, draws, deadline)
            if take is not None:
                out.append(take)
    else:
        out.append(Planner(state, "middle").plan(state))  # opens at once where the base holds
        if STRONG_ALTERNATIVE:
            out.append(Planner(state, "strong").plan(state))  # the one-draw lookahead's discard
    unique: list[list[Action]] = []
    for c in out:
        if c and c not in unique and _replay(state, c) is not None:
            unique.append(c)
    return unique or [base]


def search(state: RoundState, seed: int, history: History | None = None,
           budget: Budget = DEFAULT_BUDGET, *, belief: BeliefOf = Belief.of) -> SearchResult:
    """The expert's plan for the mover of ``state`` (the bot's simulated position).

    ``belief``: what the samples are dealt from (``Belief.of``; research passes its own)."""
    me = state.turn.seat
    started = time.thread_time()
    deadline = None if budget.cpu_ms is None else started + POTENTIAL_SHARE * budget.cpu_ms / 1000
    cands = candidates(state, history, budget.draws, deadline)
    if len(cands) == 1:
        return SearchResult(cands[0], 1, 0, [0.0])
    belief = belief(state, me, history)
    rng = random.Random(seed)
    k = len(cands)
    sums, squares = [0.0] * k, [0.0] * k
    samples = 0
    looped = time.thread_time()
    while True:
        if budget.rollouts is not None and (samples + 1) * k > max(budget.rollouts, 2 * k):
            break
        now = time.thread_time()
        spent, per = 1000 * (now - started), 1000 * (now - looped) / max(1, samples)
        if budget.cpu_ms is not None and samples >= 2 and spent + per > budget.cpu_ms:
            break  # the next sample would overrun the CPU budget
        sample = belief.sample(state, random.Random(rng.getrandbits(64)))
        values = [rollout(sample, me, c) for c in cands]
        for i, v in enumerate(values):
            d = v - values[0]
            sums[i] += d
            squares[i] += d * d
        samples += 1
    gains = [s / samples for s in sums]
    best = 0
    for i in range(1, k):
        var = max(0.0, squares[i] / samples - gains[i] ** 2)
        se = math.sqrt(var / max(1, samples - 1))
        if gains[i] > max(MARGIN, SE_FACTOR * se) and gains[i] > gains[best]:
            best = i
    return SearchResult(cands[best], k, samples, gains)
