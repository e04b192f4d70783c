"""Rule options, their defaults and the named presets (docs/rules.md §12).

Effective options = defaults ← preset ← per-room overrides.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Mapping

from .errors import Code, refuse

# allowed values per enumerated option, default first
CHOICES: dict[str, tuple[Any, ...]] = {
    "max_players": (4, 5),
    "partnership": (False, True),
    "rounds": (5, 1, 3, 7, 9),
    "opening": ("fixed", "escalating"),
    "opening_total": ("turn", "submission"),
    "partnership_opening": ("player", "team"),
    "low_ace_value": (11, 1),
    "set_joker_retrieval": ("one_card", "both_missing"),
    "discard_take": ("meld_with_card", "open_required", "meld_required", "use_if_opening"),
    "take_return": ("until_met", "by_discard", "never"),
    "jokers_per_meld": ("one", "second_by_layoff"),
    "end_joker": ("lower", "declared"),
    "going_out": ("discard_required", "meld_out_allowed"),
    "out_on_first_turn": ("forbidden", "allowed"),
    "min_hand_after_layoff": (0, 2),
    "hand_finish": ("new_melds_only", "own_melds_ok"),
    "hand_needs_threshold": (True, False),
    "reshuffle_keep_top": (False, True),
    "exhausted_round": ("score_as_is", "void"),
    "tie_break": ("most_outs", "playoff", "shared"),
}


@dataclass(frozen=True)
class Options:
    """The full, effective rule options of a room or round."""

    max_players: int = 4
    partnership: bool = False
    rounds: int = 5
    opening: str = "fixed"
    opening_threshold: int = 51
    opening_total: str = "turn"
    partnership_opening: str = "player"
    low_ace_value: int = 11
    set_joker_retrieval: str = "one_card"
    discard_take: str = "meld_with_card"
    take_return: str = "until_met"
    jokers_per_meld: str = "one"
    end_joker: str = "lower"
    going_out: str = "discard_required"
    out_on_first_turn: str = "forbidden"
    min_hand_after_layoff: int = 0
    hand_finish: str = "new_melds_only"
    hand_needs_threshold: bool = True
    hand_multiplier: int = 2
    winner_bonus: int = -30
    unopened_penalty: int = 100
    joker_in_hand: int = 15
    reshuffle_keep_top: bool = False
    max_reshuffles: int = 3
    max_turns: int = 1000
    exhausted_round: str = "score_as_is"
    tie_break: str = "most_outs"
    #: The table's number of seats (§2): 2..``max_players``, exactly 4 in partnership. ``max_players``
    #: is the rule's bound on it (4, or 5 as in ``r2019``); this is the count a table is made with.
    seat_count: int = 4

    def __post_init__(self) -> None:
        for name, allowed in CHOICES.items():
            value = getattr(self, name)
            if type(value) is not type(allowed[0]) or value not in allowed:
                raise refuse(
                    Code.INVALID_OPTIONS,
                    f"option {name}={value!r} not in {list(allowed)}",
                    option=name, value=value, allowed=",".join(map(str, sorted(allowed))),
                )
        ints = {
            "opening_threshold": (1, 1000),
            "hand_multiplier": (1, 10),
            "winner_bonus": (-1000, 0),
            "unopened_penalty": (0, 1000),
            "joker_in_hand": (0, 100),
            "max_reshuffles": (0, 1000),
            "max_turns": (1, 100000),
        }
        for name, (lo, hi) in ints.items():
            value = getattr(self, name)
            if type(value) is not int or not lo <= value <= hi:
                raise refuse(
                    Code.INVALID_OPTIONS,
                    f"option {name}={value!r} must be an integer in [{lo}, {hi}]",
                    option=name, value=value, min=lo, max=hi,
                )
        self._check_seat_count(self.seat_count)

    def _check_seat_count(self, n: object) -> None:
        """The one check of a seat count against the options (``seat_count``, or the ``n`` a round
        is dealt for): 2..``max_players``, exactly 4 in partnership."""
        if self.partnership and n != 4:
            raise refuse(Code.INVALID_OPTIONS, "partnership needs exactly 4 seats",
                         option="seat_count", value=n, min=4, max=4)
        if type(n) is not int or not 2 <= n <= self.max_players:
            raise refuse(
                Code.INVALID_OPTIONS, f"{n} seats: need 2..{self.max_players}",
                option="seat_count", value=n, min=2, max=self.max_players,
            )

    # --- helpers used by the rules -------------------------------------
    def min_players(self) -> int:
        return 4 if self.partnership else 2

    def check_players(self, n: int) -> None:
        """Refuse (``INVALID_OPTIONS``, option ``seat_count``) a seat count these options do not allow."""
        self._check_seat_count(n)

    def seated(self, n: int) -> "Options":
        """These options for a table of ``n`` seats (``self`` when it is already their count)."""
        if n == self.seat_count and type(n) is int:
            return self
        return dataclasses.replace(self, seat_count=n)  # checked by __post_init__

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def replace(self, **overrides: Any) -> "Options":
        return with_overrides(self, overrides)


FIELDS = tuple(f.name for f in dataclasses.fields(Options))


def with_overrides(base: Options, overrides: Mapping[str, Any]) -> Options:
    unknown = sorted(set(overrides) - set(FIELDS))
    if unknown:
        raise refuse(Code.INVALID_OPTIONS, f"unknown option(s) {unknown}", option=unknown[0])
    return dataclasses.replace(base, **dict(overrides))


_SAUDI = {"opening": "escalating", "low_ace_value": 1, "set_joker_retrieval": "both_missing"}
_PARTNER = {"partnership": True, "partnership_opening": "player"}
_ERAM = {
    "discard_take": "open_required",
    "take_return": "never",
    "going_out": "meld_out_allowed",
    "end_joker": "declared",
    "hand_finish": "own_melds_ok",
    "opening_total": "submission",
    "out_on_first_turn": "allowed",
    "min_hand_after_layoff": 0,
    "reshuffle_keep_top": True,
    "exhausted_round": "void",
    "tie_break": "playoff",
}

#: Named presets (docs/rules.md §12): each is a full ``Options`` (the defaults with its changes),
#: so a room's options have one engine shape, whatever the source.
PRESETS: dict[str, Options] = {name: Options(**changes) for name, changes in {
    # the four modes, which are also the Kout presets
    "hand": {},
    "saudi": dict(_SAUDI),
    "partnership": dict(_PARTNER),
    "saudi-partnership": {**_SAUDI, **_PARTNER},
    "kout-hand": {},
    "kout-saudi": dict(_SAUDI),
    "kout-partnership": dict(_PARTNER),
    "kout-saudi-partnership": {**_SAUDI, **_PARTNER},
    # ERAM: its kinds differ only in players, partnership and opening
    "eram-hand": dict(_ERAM),
    "eram-saudi": {**_ERAM, "opening": "escalating"},
    "eram-partnership": {**_ERAM, "partnership": True, "partnership_opening": "team"},
    "eram-saudi-partnership": {
        **_ERAM,
        "opening": "escalating",
        "partnership": True,
        "partnership_opening": "team",
    },
    "dananeer": {
        "discard_take": "use_if_opening",
        "take_return": "by_discard",
        "jokers_per_meld": "second_by_layoff",
        "min_hand_after_layoff": 2,
        "hand_multiplier": 1,
        "max_reshuffles": 0,
        "out_on_first_turn": "allowed",
        "tie_break": "shared",
        "partnership": False,
    },
    "r2019": {
        "max_players": 5,
        "discard_take": "meld_required",
        "take_return": "never",  # ruling on decision 0103 (docs/rules.md §12)
        "low_ace_value": 1,
        "set_joker_retrieval": "both_missing",
        "hand_finish": "own_melds_ok",
        "out_on_first_turn": "allowed",
        "partnership": False,
    },
}.items()}

#: Rounds each source offers (informational; rooms validate against CHOICES).
PRESET_ROUNDS: dict[str, tuple[int, ...]] = {
    **{p: (5, 1, 3, 7, 9) for p in PRESETS if not p.startswith(("eram", "dananeer", "r2019"))},
    **{p: (3, 5, 7, 9) for p in PRESETS if p.startswith("eram")},
    "dananeer": (5, 1),
    "r2019": (5,),
}

MODES = ("hand", "saudi", "partnership", "saudi-partnership")


def resolve(preset: str = "hand", overrides: Mapping[str, Any] | None = None) -> Options:
    """Effective options: defaults ← preset ← overrides."""
    if preset not in PRESETS:
        raise refuse(Code.INVALID_OPTIONS, f"unknown preset {preset!r}", preset=preset)
    return with_overrides(PRESETS[preset], overrides or {})
