"""Moves: ``hand.v1.Action`` ⇔ engine actions.

Decoding also refuses what is malformed whatever the position: a card id
outside 1..106 (``UNKNOWN_CARD``) or a card listed twice in one move
(``DUPLICATE_CARD``), so those answers do not depend on the turn's phase.
"""

from __future__ import annotations

from collections.abc import Iterable

from hand.v1 import actions_pb2
from hand_engine import (
    Action, Code, Discard, DrawStock, LayMelds, LayOff, MeldSpec, RetrieveJoker, ReturnTake,
    RuleViolation, TakeDiscard,
)

from ._cards import card_text, cards_in, cards_out
from .state import stand_in_from_proto, stand_in_to_proto


def _checked(cards: Iterable[int], field: str) -> tuple[int, ...]:
    """Wire ids → engine ids, refusing unknown ids and a card listed twice."""
    out = cards_in(cards, field=field)
    seen: set[int] = set()
    for card in out:
        if card in seen:
            raise RuleViolation(Code.DUPLICATE_CARD, "a card is listed twice",
                                card=card_text(card), field=field)
        seen.add(card)
    return out


def _declare(items) -> tuple[tuple[int, int, int], ...]:
    return tuple(stand_in_from_proto(d, Code.INVALID_ARGUMENT) for d in items)


def meld_spec_to_proto(spec: MeldSpec) -> actions_pb2.MeldSpec:
    return actions_pb2.MeldSpec(
        cards=cards_out(spec.cards), declare=[stand_in_to_proto(d) for d in spec.declare]
    )


def action_to_proto(action: Action) -> actions_pb2.Action:
    match action:
        case DrawStock():
            return actions_pb2.Action(draw_stock=actions_pb2.DrawStock())
        case TakeDiscard():
            return actions_pb2.Action(take_discard=actions_pb2.TakeDiscard())
        case ReturnTake():
            return actions_pb2.Action(return_take=actions_pb2.ReturnTake())
        case LayMelds(melds):
            return actions_pb2.Action(
                lay_melds=actions_pb2.LayMelds(melds=[meld_spec_to_proto(m) for m in melds])
            )
        case LayOff(meld_id, cards, declare):
            return actions_pb2.Action(lay_off=actions_pb2.LayOff(
                meld_id=meld_id, cards=cards_out(cards), declare=[stand_in_to_proto(d) for d in declare]
            ))
        case RetrieveJoker(meld_id, joker, cards):
            return actions_pb2.Action(retrieve_joker=actions_pb2.RetrieveJoker(
                meld_id=meld_id, joker=joker + 1, cards=cards_out(cards)
            ))
        case Discard(card):
            return actions_pb2.Action(discard=actions_pb2.Discard(card=card + 1))
    raise TypeError(f"not an engine action: {action!r}")


def action_from_proto(msg: actions_pb2.Action) -> Action:
    kind = msg.WhichOneof("action")
    if kind is None:
        raise RuleViolation(Code.INVALID_ARGUMENT, "no move in the action", field="action")
    body = getattr(msg, kind)
    if kind == "draw_stock":
        return DrawStock()
    if kind == "take_discard":
        return TakeDiscard()
    if kind == "return_take":
        return ReturnTake()
    if kind == "lay_melds":
        _checked([c for m in body.melds for c in m.cards], "action.lay_melds.melds.cards")
        return LayMelds(tuple(MeldSpec(cards_in(m.cards, field="action.lay_melds.melds.cards"),
                                       _declare(m.declare)) for m in body.melds))
    if kind == "lay_off":
        return LayOff(body.meld_id, _checked(body.cards, "action.lay_off.cards"), _declare(body.declare))
    if kind == "retrieve_joker":
        joker, *cards = _checked([body.joker, *body.cards], "action.retrieve_joker")
        return RetrieveJoker(body.meld_id, joker, tuple(cards))
    (card,) = _checked([body.card], "action.discard.card")
    return Discard(card)
