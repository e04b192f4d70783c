"""Position notation: a documented JSON form (docs/notation.md); a game record's is
``records.py``, built on this module's actions and options.

Like FEN/PGN for chess: cards are written in the text notation of docs/rules.md §1
(``10H``, ``AS``, ``9H#2``, ``JK#2``); round-trips are exact.
"""

from __future__ import annotations

import json
from dataclasses import fields
from typing import Any

from .actions import (
    ACTION_NAMES, ACTION_TYPES, Action, Discard, LayMelds, LayOff, MeldSpec, RetrieveJoker,
)
from .cards import SUITS, format_card, parse_card
from .errors import Code, RuleViolation, refuse
from .options import Options, with_overrides
from .state import Meld, RoundResult, RoundState, Seat, SeatResult, Turn

POSITION_FORMAT = "hand-position/1"


def _c(card: int | None) -> str | None:
    return None if card is None else format_card(card)


def _cs(cards) -> list[str]:
    return [format_card(c) for c in cards]


def _p(text: Any) -> int:
    if not isinstance(text, str):
        raise refuse(Code.INVALID_ARGUMENT, f"a card is written as text, got {text!r}")
    return parse_card(text)


def _ps(items: Any) -> tuple[int, ...]:
    if not isinstance(items, list):
        raise refuse(Code.INVALID_ARGUMENT, "expected a list of cards")
    return tuple(_p(x) for x in items)


def _suit(s: int) -> str | None:
    return None if s < 0 else SUITS[s]


def _unsuit(s: Any) -> int:
    return -1 if s is None else SUITS.index(s)


# --------------------------------------------------------------- actions
def action_to_dict(action: Action) -> dict[str, Any]:
    d: dict[str, Any] = {"action": ACTION_NAMES[type(action)]}
    if isinstance(action, Discard):
        d["card"] = format_card(action.card)
    elif isinstance(action, LayMelds):
        d["melds"] = [
            {"cards": _cs(m.cards), **({"declare": _decl_out(m.declare)} if m.declare else {})}
            for m in action.melds
        ]
    elif isinstance(action, LayOff):
        d.update(meld=action.meld_id, cards=_cs(action.cards))
        if action.declare:
            d["declare"] = _decl_out(action.declare)
    elif isinstance(action, RetrieveJoker):
        d.update(meld=action.meld_id, joker=format_card(action.joker), cards=_cs(action.cards))
    return d


def _decl_out(decl) -> list[dict[str, Any]]:
    return [{"joker": format_card(j), "rank": r, "suit": SUITS[s]} for j, r, s in decl]


def _decl_in(items: Any) -> tuple:
    return tuple((_p(x["joker"]), int(x["rank"]), SUITS.index(x["suit"])) for x in items or [])


def action_from_dict(d: dict[str, Any]) -> Action:
    try:
        kind = ACTION_TYPES[d["action"]]
        if kind is Discard:
            return Discard(_p(d["card"]))
        if kind is LayMelds:
            return LayMelds(tuple(MeldSpec(_ps(m["cards"]), _decl_in(m.get("declare"))) for m in d["melds"]))
        if kind is LayOff:
            return LayOff(int(d["meld"]), _ps(d["cards"]), _decl_in(d.get("declare")))
        if kind is RetrieveJoker:
            return RetrieveJoker(int(d["meld"]), _p(d["joker"]), _ps(d["cards"]))
        return kind()
    except RuleViolation:
        raise
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise refuse(Code.INVALID_ARGUMENT, f"malformed action: {exc!r}") from None


# --------------------------------------------------------------- options
def options_to_dict(o: Options) -> dict[str, Any]:
    """Every option but ``seat_count``: a document gives its seats itself (``seats``, the view's)."""
    d = o.to_dict()
    del d["seat_count"]
    return d


def options_from_dict(d: dict[str, Any], seats: int | None = None) -> Options:
    """``options_to_dict`` read back, for a document of ``seats`` seats (``seat_count``, unless given)."""
    if not isinstance(d, dict):
        raise refuse(Code.INVALID_OPTIONS, "options must be an object")
    return with_overrides(Options(), d if seats is None else {"seat_count": seats, **d})


# --------------------------------------------------------------- position
def _meld_out(m: Meld) -> dict[str, Any]:
    return {
        "id": m.id, "owner": m.owner, "kind": m.kind, "cards": _cs(m.cards),
        "stand_ins": [{"joker": format_card(j), "rank": r, "suit": _suit(s)} for j, r, s in m.stand_ins],
        "value": m.value, "laid_turn": m.laid_turn,
        **({"suit": SUITS[m.suit], "low": m.low} if m.kind == "run" else {"rank": m.rank}),
    }


def _meld_in(d: dict[str, Any]) -> Meld:
    run = d["kind"] == "run"
    return Meld(
        id=int(d["id"]), owner=int(d["owner"]), kind=d["kind"], cards=_ps(d["cards"]),
        stand_ins=tuple((_p(s["joker"]), int(s["rank"]), _unsuit(s["suit"])) for s in d["stand_ins"]),
        value=int(d["value"]), laid_turn=int(d["laid_turn"]),
        suit=SUITS.index(d["suit"]) if run else -1, rank=0 if run else int(d["rank"]),
        low=int(d["low"]) if run else 0,
    )


def _result_out(r: RoundResult | None) -> dict[str, Any] | None:
    if r is None:
        return None
    return {
        "finish": r.finish, "winner": r.winner, "multiplier": r.multiplier,
        "team_scores": list(r.team_scores),
        "seats": [
            {"seat": s.seat, "opened": s.opened, "opening_total": s.opening_total,
             "cards_left": _cs(s.cards_left), "cards_value": s.cards_value, "score": s.score}
            for s in r.seats
        ],
    }


def _result_in(d: dict[str, Any] | None) -> RoundResult | None:
    if d is None:
        return None
    if d["finish"] not in _FINISHES:
        raise refuse(Code.INVALID_STATE, f"unknown finish {d['finish']!r}")
    return RoundResult(
        d["finish"], _opt_int(d["winner"]), _int(d["multiplier"]),
        tuple(SeatResult(_int(s["seat"]), _bool(s["opened"]), _opt_int(s["opening_total"]),
                         _ps(s["cards_left"]), _int(s["cards_value"]), _int(s["score"]))
              for s in d["seats"]),
        tuple(_int(x) for x in d["team_scores"]),
    )


_FINISHES = ("normal", "hand", "exhausted", "void")


def _int(x: Any) -> int:
    if type(x) is not int:
        raise refuse(Code.INVALID_STATE, f"expected an integer, got {x!r}")
    return x


def _opt_int(x: Any) -> int | None:
    return None if x is None else _int(x)


def _bool(x: Any) -> bool:
    if type(x) is not bool:
        raise refuse(Code.INVALID_STATE, f"expected true or false, got {x!r}")
    return x


def _check_turn_types(td: dict[str, Any]) -> None:
    for f in fields(Turn):
        if f.name not in td:
            continue
        v = td[f.name]
        if f.name == "seat":
            _int(v)
        elif f.name == "phase" and type(v) is not str:
            raise refuse(Code.INVALID_STATE, f"expected a phase name, got {v!r}")
        elif isinstance(f.default, bool):
            _bool(v)


_TURN_CARDS = ("drawn", "taken")


def position_to_dict(state: RoundState) -> dict[str, Any]:
    t = state.turn
    turn = {f.name: getattr(t, f.name) for f in fields(Turn)}
    for k in _TURN_CARDS:
        turn[k] = _c(turn[k])
    turn["laid"] = list(t.laid)
    return {
        "format": POSITION_FORMAT,
        "options": options_to_dict(state.options),
        "seats": state.n, "round": state.round_no, "dealer": state.dealer, "seed": state.seed,
        "deck": _cs(state.deck),
        "players": [
            {"hand": _cs(s.hand), "opened": s.opened, "opening_total": s.opening_total,
             "laid_any": s.laid_any, "draw_turns": s.draw_turns}
            for s in state.seats
        ],
        "stock": _cs(state.stock), "pile": _cs(state.pile),
        "melds": [_meld_out(m) for m in state.melds],
        "next_meld_id": state.next_meld_id,
        "turn": turn, "turn_no": state.turn_no, "draw_turns": state.draw_turns,
        "rebuilds": state.rebuilds, "rebuild_orders": [_cs(o) for o in state.rebuild_orders],
        "last_opening_total": state.last_opening_total,
        "result": _result_out(state.result),
        **({"deal_key": state.deal_key.hex()} if state.deal_key else {}),
    }


def position_from_dict(d: dict[str, Any], check: bool = True) -> RoundState:
    """Parse a position; with ``check`` it must satisfy the invariants (§13)."""
    from .invariants import check_state

    try:
        if d.get("format") != POSITION_FORMAT:
            raise refuse(Code.INVALID_STATE, f"not a {POSITION_FORMAT} document")
        td = dict(d["turn"])
        unknown = set(td) - {f.name for f in fields(Turn)}
        if unknown:
            raise refuse(Code.INVALID_STATE, f"unknown turn field(s) {sorted(unknown)}")
        for k in _TURN_CARDS:
            td[k] = None if td.get(k) is None else _p(td[k])
        td["laid"] = tuple(_int(x) for x in td.get("laid", ()))
        _check_turn_types(td)
        n = _int(d["seats"])
        state = RoundState(
            options=options_from_dict(d["options"], n), n=n, dealer=_int(d["dealer"]),
            seed=_int(d["seed"]), deck=_ps(d["deck"]),
            seats=tuple(
                Seat(tuple(sorted(_ps(p["hand"]))), _bool(p["opened"]), _opt_int(p["opening_total"]),
                     _bool(p["laid_any"]), _int(p["draw_turns"]))
                for p in d["players"]
            ),
            stock=_ps(d["stock"]), pile=_ps(d["pile"]),
            melds=tuple(_meld_in(m) for m in d["melds"]), turn=Turn(**td),
            round_no=_int(d["round"]), next_meld_id=_int(d["next_meld_id"]), turn_no=_int(d["turn_no"]),
            draw_turns=_int(d["draw_turns"]), rebuilds=_int(d["rebuilds"]),
            rebuild_orders=tuple(_ps(o) for o in d["rebuild_orders"]),
            last_opening_total=_opt_int(d["last_opening_total"]), result=_result_in(d["result"]),
            deal_key=bytes.fromhex(d.get("deal_key", "")),
        )
        if check:
            check_state(state)
    except RuleViolation as exc:
        if exc.code is Code.INVALID_ARGUMENT:  # a card list of the wrong shape
            raise refuse(Code.INVALID_STATE, f"malformed position: {exc.detail}") from None
        raise
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
        raise refuse(Code.INVALID_STATE, f"malformed position: {exc!r}") from None
    return state


def dumps(state: RoundState) -> str:
    return json.dumps(position_to_dict(state), ensure_ascii=False, indent=1)


def loads(text: str) -> RoundState:
    try:
        d = json.loads(text)
    except (TypeError, ValueError) as exc:  # json.JSONDecodeError is a ValueError
        raise refuse(Code.INVALID_STATE, f"not a JSON document: {exc}") from None
    return position_from_dict(d)
