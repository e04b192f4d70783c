"""What leaves for a player: engine ``SeatView``, staging and suggestions → wire.

One direction only: clients never send these back.
"""

from __future__ import annotations

from typing import Any

from hand.v1 import rules_service_pb2, views_pb2
from hand_engine import Options, SeatView

from ._cards import card_out, cards_out
from ._enums import MELD_KIND, STAGING_COLOUR, TURN_PHASE
from .actions import meld_spec_to_proto
from .options import options_message
from .state import _meld_message, result_to_proto, stand_in_to_proto


def view_to_proto(v: SeatView, options: Options) -> views_pb2.SeatView:
    """``v`` with the round's ``options`` (the engine's view does not carry them)."""
    t = v.turn
    return views_pb2.SeatView(
        seat=v.seat, n=v.n, round_no=v.round_no, dealer=v.dealer,
        seats=[
            views_pb2.PublicSeat(
                seat=s.seat, hand_size=s.hand_size, opened=s.opened, opening_total=s.opening_total,
                laid_any=s.laid_any, draw_turns=s.draw_turns,
            )
            for s in v.seats
        ],
        pile=cards_out(v.pile), melds=[_meld_message(m) for m in v.melds], threshold=v.threshold,
        stock_size=v.stock_size, rebuilds=v.rebuilds,
        turn=views_pb2.TurnView(
            seat=t.seat, phase=TURN_PHASE.encode(t.phase), opening_discard=t.opening_discard,
            first_turn=t.first_turn, taken=card_out(t.taken), take_pending=t.take_pending,
            discard_only=t.discard_only, drawn=card_out(t.drawn), fresh=t.fresh, took=t.took,
            take_final=t.take_final, take_met=t.take_met, laid=t.laid, layoffs=t.layoffs,
            foreign=t.foreign, opened_now=t.opened_now,
        ),
        result=None if v.result is None else result_to_proto(v.result),
        options=options_message(options), hand=cards_out(v.hand), turn_no=v.turn_no,
        draw_turns=v.draw_turns, next_meld_id=v.next_meld_id,
        last_opening_total=v.last_opening_total,
    )


def staging_to_proto(s: Any) -> views_pb2.StagingEvaluation:
    """An engine ``Staging`` (``hand_engine.evaluate_staging``)."""
    return views_pb2.StagingEvaluation(
        verdicts=[
            views_pb2.CandidateVerdict(
                cards=cards_out(v.cards), colour=STAGING_COLOUR.encode(v.colour), kind=MELD_KIND.encode(v.kind),
                value=v.value, stand_ins=[stand_in_to_proto(x) for x in v.stand_ins],
                possible=[MELD_KIND.encode(k) for k in v.possible],
            )
            for v in s.verdicts
        ],
        show_counter=s.show_counter, total=s.total, threshold=s.threshold, missing=s.missing,
    )


def suggestion_to_proto(s: Any) -> rules_service_pb2.SuggestMeldsResponse:
    """An engine ``Suggestion`` (``hand_engine.suggest``)."""
    return rules_service_pb2.SuggestMeldsResponse(
        melds=[meld_spec_to_proto(m) for m in s.melds], values=s.values, total=s.total,
        threshold=s.threshold, reaches_threshold=s.reaches_threshold, left_value=s.left_value,
    )


def view_from_proto(msg: views_pb2.SeatView) -> SeatView:
    """A wire SeatView back to the engine's (a bot or any client of the contract)."""
    from hand_engine import PublicSeat, TurnView

    from ._cards import card_in, cards_in
    from .state import meld_from_proto, result_from_proto

    def opt(m, name):
        return getattr(m, name) if m.HasField(name) else None

    t = msg.turn
    turn = TurnView(
        seat=t.seat, phase=TURN_PHASE.decode(t.phase, what="turn.phase"), opening_discard=t.opening_discard,
        first_turn=t.first_turn, taken=card_in(t.taken, field="turn.taken") if t.HasField("taken") else None,
        take_pending=t.take_pending, discard_only=t.discard_only,
        drawn=card_in(t.drawn, field="turn.drawn") if t.HasField("drawn") else None, fresh=t.fresh,
        took=t.took, take_final=t.take_final, take_met=t.take_met, laid=tuple(t.laid), layoffs=t.layoffs,
        foreign=t.foreign, opened_now=t.opened_now,
    )
    return SeatView(
        seat=opt(msg, "seat"), n=msg.n, round_no=msg.round_no, dealer=msg.dealer,
        seats=tuple(PublicSeat(s.seat, s.hand_size, s.opened, opt(s, "opening_total"), s.laid_any,
                               s.draw_turns) for s in msg.seats),
        pile=cards_in(msg.pile, field="pile"), melds=tuple(meld_from_proto(m) for m in msg.melds),
        threshold=msg.threshold, stock_size=msg.stock_size, rebuilds=msg.rebuilds, turn=turn,
        hand=cards_in(msg.hand, field="hand"),
        result=result_from_proto(msg.result) if msg.HasField("result") else None,
        turn_no=msg.turn_no, draw_turns=msg.draw_turns, next_meld_id=msg.next_meld_id,
        last_opening_total=opt(msg, "last_opening_total"),
    )
