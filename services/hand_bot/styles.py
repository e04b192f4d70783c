"""The planned levels' styles (``Style``) and their table (``STYLES``: middle, strong, expert):
what the planner (``planner.Planner``) weighs differently per level."""

from __future__ import annotations

from dataclasses import dataclass, replace

from .potential import PotentialStyle

#: weight of the static discard cost beside the lookahead's worth
LOOKAHEAD_MIX = 0.25


@dataclass(frozen=True)
class Style:
    """What distinguishes the planned levels."""

    outs: bool  # weigh pairs by the unseen cards that complete them
    danger: float  # points charged per unit chance of feeding the next seat
    hold: bool  # keep melds in hand while a Hand finish is in reach
    build_takes: bool  # take the pile top, when that obliges to nothing, to build the hand
    retrieve: bool  # retrieve jokers when that sheds more
    lookahead: bool  # weigh the best discards by the hand's worth after the next draw
    closed_shed: float = 0.35  # hand_eval.DiscardWeights
    open_shed: float = 1.0
    lookahead_mix: float = LOOKAHEAD_MIX  # weight of the static cost beside the lookahead
    potential: PotentialStyle | None = None  # weigh the discard by the hand's potential instead


STYLES: dict[str, Style] = {
    "middle": Style(outs=False, danger=0.0, hold=False, build_takes=False, retrieve=True,
                    lookahead=False),
    "strong": Style(outs=True, danger=14.0, hold=True, build_takes=True, retrieve=True,
                    lookahead=True),
}
#: the expert's planner: strong, with its discards weighed by the hand's potential over
#: the next draws, dealt from its belief (``potential.Potential``); decision 0015
STYLES["expert"] = replace(STYLES["strong"], potential=PotentialStyle())
