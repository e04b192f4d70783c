// What the card taken from the pile obliges the player to do this turn (docs/rules.md §3, option
// `discard_take`), in words that say what to do: shown while the duty is pending and with a refusal.
import { cardName } from "./cards";
import { DiscardTake, TakeReturn } from "./gen/hand/v1/options_pb";
import type { SeatView } from "./gen/hand/v1/views_pb";
import { num, t } from "./i18n";

/** The pending duty of the viewer's take, or "" (no take, the duty met, or none for this player). */
export function takeDuty(view: SeatView | undefined): string {
  const turn = view?.turn;
  if (!view || view.seat === undefined || !turn || turn.seat !== view.seat || turn.taken === undefined || turn.takeMet) return "";
  const tx = t();
  const card = cardName(turn.taken);
  const open = !!view.seats[view.seat]?.opened;
  const need = num(view.threshold);
  let what = "";
  switch (view.options?.discardTake) {
    case DiscardTake.OPEN_REQUIRED: what = open ? "" : tx.dutyOpen(card, need); break;
    case DiscardTake.MELD_REQUIRED: what = open ? tx.dutyMeld(card) : tx.dutyMeldOpen(card, need); break;
    case DiscardTake.USE_IF_OPENING: what = open ? "" : tx.dutyUseIfOpening(card); break;
    default: what = open ? tx.dutyMeldWithCard(card) : tx.dutyMeldWithCardOpen(card, need);
  }
  if (!what) return "";
  const returnable = !turn.takeFinal && view.options?.takeReturn !== TakeReturn.NEVER;
  return returnable ? `${what} ${tx.dutyOrReturn}` : what;
}
