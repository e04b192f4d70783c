import type { RoomInfo } from "../gen/hand/v1/room_pb";
import type { SeatView } from "../gen/hand/v1/views_pb";
import { t } from "../i18n";
import { TurnTimer } from "./timer";

/** Inside the score sheet, once the room has dealt the next round (it deals at once, while the sheet
 * is still read): the round has started, whose turn it is and, on the player's own turn, its live
 * countdown, with the way back to the table (issue 26, item 5: never a turn timed behind a dialog).
 * An alert: the player learns it without looking for it. */
export function NextRound({ room, view, mySeat, name, onBack }: {
  room: RoomInfo; view?: SeatView; mySeat?: number; name: (s?: number) => string; onBack: () => void;
}) {
  const tx = t();
  const turn = view?.turn;
  const mine = turn !== undefined && mySeat !== undefined && turn.seat === mySeat;
  return <div class={`next-round${mine ? " mine" : ""}`} role="alert">
    <strong>{tx.roundStarted(room.roundNo)}</strong>
    {turn && <span> · {mine ? tx.yourTurn : tx.turnOf(name(turn.seat))}
      <TurnTimer deadline={room.turnDeadline} mine={mine} /></span>}
    <button type="button" class="primary" onClick={onBack}>{tx.backToTable}</button>
  </div>;
}

/** The sheet's round is over and the room plays the next one (a banner is due). */
export function nextRoundDealt(room: RoomInfo | undefined, sheetRound: number, view?: SeatView): boolean {
  return !!room && room.roundNo > sheetRound && !view?.result && view?.roundNo === room.roundNo;
}
