// All decoding of Watch messages and room events lives here, so a contract change touches one file.
import type { Action } from "./gen/hand/v1/actions_pb";
import { MoveOrigin, type RoomInfo, type WatchResponse } from "./gen/hand/v1/room_service_pb";
import type { RoundResult } from "./gen/hand/v1/state_pb";
import type { SeatView } from "./gen/hand/v1/views_pb";
import { cardName } from "./cards";
import { getLang } from "./i18n";

export interface Update {
  /** The from_seq to resume with after this message. */
  next: bigint;
  /** The event's seq; unset for the snapshot. */
  seq?: bigint;
  /** Event kind (room_created, moved, round_scored, …); unset for the snapshot. */
  kind?: string;
  /** The seat the event concerns. */
  seat?: number;
  view?: SeatView;
  room?: RoomInfo;
  /** round_scored: the round's result and number. */
  result?: RoundResult;
  roundNo?: number;
  /** match_ended. */
  matchOver: boolean;
  /** A line for the table's log, in the player's language at the time it is shown ("" = nothing). */
  line: () => string;
}

export function decode(res: WatchResponse): Update {
  const ev = res.event;
  if (!ev) return { next: res.seq, view: res.view, room: res.room, matchOver: false, line: () => "" };
  const name = (s?: number) => (s === undefined ? "" : res.room?.seats[s]?.name || `#${s + 1}`);
  return {
    next: res.seq + 1n, seq: res.seq, kind: ev.kind, seat: ev.seat, view: res.view, room: res.room,
    result: ev.kind === "round_scored" ? ev.result : undefined, roundNo: ev.roundNo,
    matchOver: ev.kind === "match_ended",
    line: () => describe(ev.kind, name(ev.seat), ev.action, ev.origin, ev.roundNo),
  };
}

const MOVES: Record<string, [string, string]> = {
  drawStock: ["drew from the stock", "سحب من الكومة"],
  takeDiscard: ["took from the pile", "أخذ من المرمى"],
  returnTake: ["returned the take", "أرجع الورقة المأخوذة"],
  layMelds: ["laid melds", "نزّل مجموعات"],
  layOff: ["laid off", "ألصق ورقاً"],
  retrieveJoker: ["retrieved a joker", "استرجع جوكر"],
  discard: ["discarded", "رمى"],
};
const KINDS: Record<string, [string, string]> = {
  seat_taken: ["sat down", "جلس"], seat_left: ["left", "غادر"], seat_away: ["is away (a bot plays)", "غائب (يلعب آلي)"],
  seat_back: ["is back", "عاد"], match_started: ["The match starts", "بدأت المباراة"],
  turn_timed_out: ["ran out of time", "انتهى وقته"], match_ended: ["The match is over", "انتهت المباراة"],
};

function describe(kind: string, who: string, action: Action | undefined, origin: MoveOrigin, roundNo: number): string {
  const ar = getLang() === "ar" ? 1 : 0;
  if (kind === "moved" && action?.action.case) {
    const verb = MOVES[action.action.case]?.[ar] ?? action.action.case;
    const card = action.action.case === "discard" ? ` ${cardName(action.action.value.card)}` : "";
    const how = origin === MoveOrigin.TIMER ? (ar ? " (المؤقت)" : " (timer)") : "";
    return `${who} ${verb}${card}${how}`;
  }
  if (kind === "round_started") return ar ? `الجولة ${roundNo}` : `Round ${roundNo} is dealt`;
  if (kind === "round_scored") return ar ? `انتهت الجولة ${roundNo}` : `Round ${roundNo} is over`;
  const text = KINDS[kind];
  if (!text) return "";
  return kind === "match_started" || kind === "match_ended" ? text[ar] : `${who} ${text[ar]}`;
}
