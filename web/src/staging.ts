// The staging helper: RulesService.EvaluateStaging and SuggestMelds need a RoundState, which never
// leaves the server. The seat builds a stand-in from its own view: its hand, the public table, and
// the cards it cannot see dealt arbitrarily to the other hands and the stock (the verdicts depend only
// on the seat's hand, the table, the options and the threshold, docs/rules.md §11).
import { create } from "@bufbuild/protobuf";
import { rules } from "./api";
import { RoundStateSchema, TurnSchema, SeatStateSchema, type RoundState } from "./gen/hand/v1/state_pb";
import { SuggestionGoal, type SuggestMeldsResponse } from "./gen/hand/v1/rules_service_pb";
import type { SeatView, StagingEvaluation } from "./gen/hand/v1/views_pb";
import { WIRE_BASE } from "./cards";

export function stateFromView(v: SeatView): RoundState {
  const seen = new Set<number>([...v.hand, ...v.pile, ...v.melds.flatMap((m) => m.cards)]);
  const unseen: number[] = [];
  for (let id = WIRE_BASE; id < WIRE_BASE + 106; id++) if (!seen.has(id)) unseen.push(id);
  const seats = v.seats.map((s, i) => create(SeatStateSchema, {
    hand: i === v.seat ? v.hand : unseen.splice(0, s.handSize),
    opened: s.opened, openingTotal: s.openingTotal, laidAny: s.laidAny, drawTurns: s.drawTurns,
  }));
  const t = v.turn;
  return create(RoundStateSchema, {
    options: v.options, n: v.n, dealer: v.dealer, seed: 0n,
    deck: Array.from({ length: 106 }, (_, i) => i + WIRE_BASE), seats, stock: unseen, pile: v.pile,
    melds: v.melds, roundNo: v.roundNo, nextMeldId: v.nextMeldId, turnNo: v.turnNo,
    drawTurns: v.drawTurns, rebuilds: v.rebuilds, lastOpeningTotal: v.lastOpeningTotal, result: v.result,
    turn: t && create(TurnSchema, {
      seat: t.seat, phase: t.phase, openingDiscard: t.openingDiscard, firstTurn: t.firstTurn, drawn: t.drawn,
      taken: t.taken, takeFinal: t.takeFinal, takeMet: t.takeMet, took: t.took, laid: t.laid,
      layoffs: t.layoffs, foreign: t.foreign, openedNow: t.openedNow, discardOnly: t.discardOnly, fresh: t.fresh,
    }),
  });
}

export async function evaluate(v: SeatView, groups: number[][]): Promise<StagingEvaluation | undefined> {
  if (v.seat === undefined) return undefined;
  const res = await rules.evaluateStaging({ state: stateFromView(v), seat: v.seat,
    candidates: groups.map((cards) => ({ cards })) });
  return res.evaluation;
}

export async function suggest(v: SeatView): Promise<SuggestMeldsResponse | undefined> {
  if (v.seat === undefined) return undefined;
  const opened = v.seats[v.seat]?.opened;
  return rules.suggestMelds({ state: stateFromView(v), seat: v.seat,
    goal: opened ? SuggestionGoal.SHED : SuggestionGoal.OPENING });
}
