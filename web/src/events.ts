// All decoding of Watch messages and room events lives here, so a contract change touches one file.
// WatchResponse: a snapshot first (next_seq), then one RoomEvent envelope (room_id, seq, at) per event
// with a oneof of one typed message per kind; every message carries the watcher's view and the room.
import type { Action } from "./gen/hand/v1/actions_pb";
import { MoveOrigin, type RoomInfo } from "./gen/hand/v1/room_pb";
import type { ChatSent, RoomEvent } from "./gen/hand/v1/room_events_pb";
import type { WatchResponse } from "./gen/hand/v1/room_service_pb";
import type { RoundResult } from "./gen/hand/v1/state_pb";
import type { SeatView } from "./gen/hand/v1/views_pb";
import { cardName } from "./cards";
import { getLang, t } from "./i18n";

export type Kind = "snapshot" | "room_created" | "seat_taken" | "seat_left" | "seat_away" | "seat_back"
  | "seat_connected" | "match_started" | "round_started" | "moved" | "turn_timed_out" | "round_scored"
  | "match_ended" | "chat_sent";

export interface Update {
  /** The from_seq to resume with after this message. */
  next: bigint;
  /** The event's seq; unset for the snapshot. */
  seq?: bigint;
  /** When the event was recorded (ms since the epoch, the server's clock); unset for the snapshot. */
  at?: number;
  kind: Kind;
  /** The seat the event concerns. */
  seat?: number;
  view?: SeatView;
  room?: RoomInfo;
  /** round_scored: the round's result and number. */
  result?: RoundResult;
  roundNo?: number;
  matchOver: boolean;
  /** chat_sent: who sent which quick-chat phrase (ui/chat.tsx shows it; the log does not). */
  chat?: ChatSent;
  /** A line for the table's log, in the player's language at the time it is shown ("" = nothing). */
  line: () => string;
}

const KIND: Record<NonNullable<RoomEvent["event"]["case"]>, Kind> = {
  roomCreated: "room_created", seatTaken: "seat_taken", seatLeft: "seat_left", seatAway: "seat_away",
  seatBack: "seat_back", seatConnected: "seat_connected", matchStarted: "match_started",
  roundDealt: "round_started", moveMade: "moved", turnTimedOut: "turn_timed_out", roundScored: "round_scored",
  matchEnded: "match_ended", chatSent: "chat_sent",
};

export function decode(res: WatchResponse): Update {
  const base = { view: res.view, room: res.room, matchOver: false };
  if (res.message.case !== "event") {
    const next = res.message.case === "snapshot" ? res.message.value.nextSeq : 0n;
    return { ...base, next, kind: "snapshot", line: () => "" };
  }
  const ev = res.message.value;
  const e = ev.event;
  if (!e.case) return { ...base, next: ev.seq + 1n, seq: ev.seq, kind: "snapshot", line: () => "" };
  const { kind, seat, roundNo } = fields(ev);
  return {
    ...base, next: ev.seq + 1n, seq: ev.seq, kind, seat, roundNo,
    at: ev.at ? Number(ev.at.seconds) * 1000 + Math.floor(ev.at.nanos / 1e6) : undefined,
    result: e.case === "roundScored" ? e.value.result : undefined,
    matchOver: e.case === "matchEnded",
    chat: e.case === "chatSent" ? e.value : undefined,
    line: () => (e.case === "chatSent" ? "" : eventLine(ev, res.room, res.view?.seat)),
  };
}

function fields(ev: RoomEvent): { kind: Kind; seat?: number; roundNo?: number } {
  const e = ev.event;
  if (!e.case) return { kind: "snapshot" };
  return {
    kind: KIND[e.case],
    seat: "seat" in e.value ? (e.value.seat as number | undefined) : undefined,
    roundNo: "roundNo" in e.value ? (e.value.roundNo as number) : undefined,
  };
}

/** One room event as a line of text in the player's language (the table's log, the replay viewer).
 * ``me``: the reader's seat; a move the timer or a bot made for it says so in a sentence of its own. */
export function eventLine(ev: RoomEvent, room?: RoomInfo, me?: number): string {
  const { kind, seat, roundNo } = fields(ev);
  const who = seat === undefined ? "" : room?.seats[seat]?.name || `#${seat + 1}`;
  const move = ev.event.case === "moveMade" ? ev.event.value : undefined;
  const origin = move?.origin ?? MoveOrigin.UNSPECIFIED;
  if (move && me !== undefined && seat === me && (origin === MoveOrigin.TIMER || origin === MoveOrigin.BOT)) {
    const what = describe(kind, "", move.action, MoveOrigin.UNSPECIFIED, 0).trim();
    return origin === MoveOrigin.TIMER ? t().timerPlayed(what) : t().botPlayed(what);
  }
  return describe(kind, who, move?.action, origin, roundNo ?? 0) || kind;
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
const KINDS: Partial<Record<Kind, [string, string]>> = {
  seat_taken: ["sat down", "جلس"], seat_left: ["left", "غادر"], seat_away: ["is away (a bot plays)", "غائب (يلعب آلي)"],
  seat_back: ["is back", "عاد"], match_started: ["The match starts", "بدأت المباراة"],
  turn_timed_out: ["ran out of time", "انتهى وقته"], match_ended: ["The match is over", "انتهت المباراة"],
};

function describe(kind: Kind, who: string, action: Action | undefined, origin: MoveOrigin, roundNo: number): string {
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
