"""Round state: engine ``RoundState`` (and its parts) ⇔ ``hand.v1.RoundState``.

Encoding is total. Decoding maps field by field and refuses only what cannot
be an engine value (unset or unknown enums → ``INVALID_STATE``); whether the
position is consistent is ``hand_engine.check_state``'s business.
"""

from __future__ import annotations

from functools import lru_cache

from hand.v1 import cards_pb2, state_pb2
from hand_engine import Code, Meld, RoundResult, RoundState, Seat, SeatResult, Turn

from ._cards import card_in, card_out, cards_in, cards_out
from ._enums import FINISH, MELD_KIND, TURN_PHASE, suit_from_proto, suit_to_proto
from .options import options_from_proto, options_message

_BAD = Code.INVALID_STATE
# ``tuple(msg.field[:])``: a repeated scalar field sliced to a list first converts
# faster than iterating the container (upb), and states are decoded on every call.
StandIn = tuple[int, int, int]


def _opt(msg, name: str) -> int | None:
    return getattr(msg, name) if msg.HasField(name) else None


def _card_opt(msg, name: str) -> int | None:
    return card_in(getattr(msg, name), _BAD, f"turn.{name}") if msg.HasField(name) else None


def stand_in_to_proto(s: StandIn) -> cards_pb2.StandIn:
    return cards_pb2.StandIn(joker=s[0] + 1, rank=s[1], suit=suit_to_proto(s[2]))


def stand_in_from_proto(msg: cards_pb2.StandIn, code: Code = _BAD) -> StandIn:
    return (card_in(msg.joker, code, "declare.joker"), msg.rank, suit_from_proto(msg.suit, code))


def meld_to_proto(m: Meld) -> state_pb2.Meld:
    """A fresh message (``_meld_message`` is the shared, cached one)."""
    msg = state_pb2.Meld()
    msg.CopyFrom(_meld_message(m))
    return msg


# Melds on the table recur unchanged in every call of a round: both directions
# are cached. A cached message is shared: only pass it where protobuf copies it.
@lru_cache(maxsize=4096)
def _meld_message(m: Meld) -> state_pb2.Meld:
    return state_pb2.Meld(
        id=m.id, owner=m.owner, kind=MELD_KIND.encode(m.kind), cards=cards_out(m.cards),
        stand_ins=[stand_in_to_proto(s) for s in m.stand_ins], value=m.value,
        laid_turn=m.laid_turn, suit=suit_to_proto(m.suit), rank=m.rank, low=m.low,
    )


def meld_from_proto(msg: state_pb2.Meld) -> Meld:
    return _meld_from_bytes(msg.SerializeToString(deterministic=True))


@lru_cache(maxsize=4096)
def _meld_from_bytes(data: bytes) -> Meld:
    msg = state_pb2.Meld.FromString(data)
    return Meld(
        id=msg.id, owner=msg.owner, kind=MELD_KIND.decode(msg.kind, _BAD, "Meld.kind"),
        cards=cards_in(msg.cards, _BAD, "meld.cards"),
        stand_ins=tuple(stand_in_from_proto(s) for s in msg.stand_ins),
        value=msg.value, laid_turn=msg.laid_turn, suit=suit_from_proto(msg.suit, _BAD),
        rank=msg.rank, low=msg.low,
    )


def _turn_to_proto(t: Turn) -> state_pb2.Turn:
    return state_pb2.Turn(
        seat=t.seat, phase=TURN_PHASE.encode(t.phase), opening_discard=t.opening_discard,
        first_turn=t.first_turn, drawn=card_out(t.drawn), taken=card_out(t.taken), take_final=t.take_final,
        take_met=t.take_met, took=t.took, laid=t.laid, layoffs=t.layoffs, foreign=t.foreign,
        opened_now=t.opened_now, discard_only=t.discard_only, fresh=t.fresh,
    )


def _turn_from_proto(msg: state_pb2.Turn) -> Turn:
    return Turn(
        seat=msg.seat, phase=TURN_PHASE.decode(msg.phase, _BAD, "Turn.phase"),
        opening_discard=msg.opening_discard, first_turn=msg.first_turn, fresh=msg.fresh,
        drawn=_card_opt(msg, "drawn"), taken=_card_opt(msg, "taken"), take_final=msg.take_final,
        take_met=msg.take_met, took=msg.took, laid=tuple(msg.laid[:]), layoffs=msg.layoffs,
        foreign=msg.foreign, opened_now=msg.opened_now, discard_only=msg.discard_only,
    )


def _seat_to_proto(s: Seat) -> state_pb2.SeatState:
    return state_pb2.SeatState(
        hand=cards_out(s.hand), opened=s.opened, opening_total=s.opening_total, laid_any=s.laid_any,
        draw_turns=s.draw_turns,
    )


def _seat_from_proto(msg: state_pb2.SeatState) -> Seat:
    return Seat(
        hand=cards_in(msg.hand[:], _BAD, "seats.hand"), opened=msg.opened, opening_total=_opt(msg, "opening_total"),
        laid_any=msg.laid_any, draw_turns=msg.draw_turns,
    )


def result_to_proto(r: RoundResult) -> state_pb2.RoundResult:
    return state_pb2.RoundResult(
        finish=FINISH.encode(r.finish), winner=r.winner, multiplier=r.multiplier,
        seats=[
            state_pb2.SeatResult(
                seat=s.seat, opened=s.opened, opening_total=s.opening_total,
                cards_left=cards_out(s.cards_left), cards_value=s.cards_value, score=s.score,
            )
            for s in r.seats
        ],
        team_scores=r.team_scores,
    )


def result_from_proto(msg: state_pb2.RoundResult) -> RoundResult:
    return RoundResult(
        finish=FINISH.decode(msg.finish, _BAD, "RoundResult.finish"), winner=_opt(msg, "winner"),
        multiplier=msg.multiplier,
        seats=tuple(
            SeatResult(
                seat=s.seat, opened=s.opened, opening_total=_opt(s, "opening_total"),
                cards_left=cards_in(s.cards_left[:], _BAD, "result.seats.cards_left"),
                cards_value=s.cards_value, score=s.score,
            )
            for s in msg.seats
        ),
        team_scores=tuple(msg.team_scores[:]),
    )


def state_to_proto(s: RoundState) -> state_pb2.RoundState:
    return state_pb2.RoundState(
        options=options_message(s.options), n=s.n, dealer=s.dealer, seed=s.seed, deck=cards_out(s.deck),
        seats=[_seat_to_proto(x) for x in s.seats], stock=cards_out(s.stock), pile=cards_out(s.pile),
        melds=[_meld_message(m) for m in s.melds], turn=_turn_to_proto(s.turn),
        round_no=s.round_no, next_meld_id=s.next_meld_id, turn_no=s.turn_no,
        draw_turns=s.draw_turns, rebuilds=s.rebuilds,
        rebuild_orders=[cards_pb2.CardList(cards=cards_out(o)) for o in s.rebuild_orders],
        last_opening_total=s.last_opening_total,
        result=None if s.result is None else result_to_proto(s.result), deal_key=s.deal_key,
    )


def state_from_proto(msg: state_pb2.RoundState) -> RoundState:
    """Decode a client-supplied state (then check it with ``hand_engine.check_state``)."""
    return RoundState(
        options=options_from_proto(msg.options, msg.n), n=msg.n, dealer=msg.dealer, seed=msg.seed,
        deck=cards_in(msg.deck[:], _BAD, "deck"), seats=tuple(_seat_from_proto(x) for x in msg.seats),
        stock=cards_in(msg.stock[:], _BAD, "stock"), pile=cards_in(msg.pile[:], _BAD, "pile"),
        melds=tuple(meld_from_proto(m) for m in msg.melds), turn=_turn_from_proto(msg.turn),
        round_no=msg.round_no, next_meld_id=msg.next_meld_id, turn_no=msg.turn_no,
        draw_turns=msg.draw_turns, rebuilds=msg.rebuilds,
        rebuild_orders=tuple(cards_in(o.cards[:], _BAD, "rebuild_orders") for o in msg.rebuild_orders),
        last_opening_total=_opt(msg, "last_opening_total"),
        result=result_from_proto(msg.result) if msg.HasField("result") else None, deal_key=msg.deal_key,
    )
