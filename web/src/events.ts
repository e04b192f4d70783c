// All decoding of Watch messages and room events lives here, so a contract change touches one file.
// WatchResponse: a snapshot first (next_seq), then one RoomEvent envelope (room_id, seq, at) per event
// with a oneof of one typed message per kind; every message carries the watcher's view and the room.
import { MoveOrigin, SeatKind, type RoomInfo } from "./gen/hand/v1/room_pb";
import type { ChatSent, RoomEvent } from "./gen/hand/v1/room_events_pb";
import type { WatchResponse } from "./gen/hand/v1/room_service_pb";
import type { RoundResult } from "./gen/hand/v1/state_pb";
import type { SeatView } from "./gen/hand/v1/views_pb";
import { cardName } from "./cards";
import { mode, t } from "./i18n";
import { displayName, seatName } from "./names";

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

/** One room event as a sentence in the player's language (the table's log, the replay viewer); never
 * a raw key. ``me``: the reader's seat; a move the timer or a bot made for it says so in a sentence of its own. */
export function eventLine(ev: RoomEvent, room?: RoomInfo, me?: number): string {
  const { kind, seat, roundNo } = fields(ev);
  const who = seatName(room, seat);
  const move = ev.event.case === "moveMade" ? ev.event.value : undefined;
  const origin = move?.origin ?? MoveOrigin.UNSPECIFIED;
  if (move && me !== undefined && seat === me && (origin === MoveOrigin.TIMER || origin === MoveOrigin.BOT)) {
    const what = describe(ev, "", MoveOrigin.UNSPECIFIED, 0, room).trim();
    return origin === MoveOrigin.TIMER ? t().timerPlayed(what) : t().botPlayed(what);
  }
  return describe(ev, who, origin, roundNo ?? 0, room);
}

function describe(ev: RoomEvent, who: string, origin: MoveOrigin, roundNo: number, room?: RoomInfo): string {
  const tx = t();
  const e = ev.event;
  switch (e.case) {
    case "moveMade": {
      const a = e.value.action?.action;
      if (!a?.case) return "";
      const card = a.case === "discard" ? ` ${cardName(a.value.card)}` : "";
      return tx.moved(who, (tx.moves[a.case] ?? "") + card + (origin === MoveOrigin.TIMER ? tx.byTimer : ""));
    }
    case "roomCreated": return tx.roomOpened(mode(e.value.preset || room?.preset || "")[0]);
    case "seatTaken": return tx.sat(displayName(e.value.name, e.value.kind === SeatKind.BOT) || who);
    case "seatLeft": return tx.left(who);
    case "seatAway": return tx.awayLine(who);
    case "seatBack": return tx.backLine(who);
    case "seatConnected": return tx.connected(who);
    case "matchStarted": return tx.started;
    case "roundDealt": return tx.dealt(roundNo);
    case "turnTimedOut": return tx.timedOut(who);
    case "roundScored": return tx.roundOver(roundNo);
    case "matchEnded": return tx.ended;
    default: return ""; // chat (shown as bubbles), and kinds this page does not know: nothing, never a key
  }
}
