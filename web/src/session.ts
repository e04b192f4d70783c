// Seat tokens kept in the browser, and a Watch that resumes from the last seq + 1 after a drop.
import { Code, ConnectError } from "@connectrpc/connect";
import { authorizer, owners } from "./api";
import { observe } from "./clock";
import { decode, type Update } from "./events";
import { ErrorCode, RuleErrorSchema } from "./gen/hand/v1/errors_pb";
import { pauseUntilOnline as sleep, retryAfterMs } from "./owner";

export interface Seat { roomId: string; token: string; seat: number; name: string; }

export function saveSeat(s: Seat): void { localStorage.setItem(`hand.seat.${s.roomId}`, JSON.stringify(s)); }
export function loadSeat(roomId: string): Seat | null {
  const raw = localStorage.getItem(`hand.seat.${roomId}`);
  return raw ? (JSON.parse(raw) as Seat) : null;
}
/** The tournament a room is a table of (ui/tournament.tsx), for the score sheet's way back to it. */
export function rememberTournament(roomId: string, tournamentId: string): void {
  localStorage.setItem(`hand.tournament.${roomId}`, tournamentId);
}
export function tournamentOf(roomId: string): string | null { return localStorage.getItem(`hand.tournament.${roomId}`); }
/** The seats this browser holds (at most `max` of them), for the lobby's "your tables". */
export function savedSeats(max = 12): Seat[] {
  const out: Seat[] = [];
  for (let i = 0; i < localStorage.length && out.length < max; i++) {
    const k = localStorage.key(i);
    if (k?.startsWith("hand.seat.")) try { out.push(JSON.parse(localStorage.getItem(k) ?? "")); } catch { /* not a seat */ }
  }
  return out;
}
export function forgetSeat(roomId: string): void { localStorage.removeItem(`hand.seat.${roomId}`); }

/** A seat token the server will never accept again (decision 0011): its seat was left or
 * freed (SEAT_TOKEN_EXPIRED), or it is not this room's (SEAT_TOKEN_INVALID). */
export function seatTokenDead(err: unknown): boolean {
  const e = ConnectError.from(err);
  if (e.code !== Code.PermissionDenied) return false;
  const [detail] = e.findDetails(RuleErrorSchema);
  return detail?.code === ErrorCode.SEAT_TOKEN_EXPIRED || detail?.code === ErrorCode.SEAT_TOKEN_INVALID;
}

export function playerId(): string {
  let id = localStorage.getItem("hand.player");
  if (!id) { id = newId(); localStorage.setItem("hand.player", id); }
  return id;
}
export function newId(): string {
  return globalThis.crypto?.randomUUID?.() ?? `${Date.now()}-${Math.random().toString(36).slice(2)}`;
}

/** What the stream did, for the tests: reconnections, and seqs that did not follow the last one. */
export const streamStats = { reconnects: 0, gaps: 0, drop: () => {} };
(globalThis as { __hand?: typeof streamStats }).__hand = streamStats;

/** Follow a room: calls onUpdate for every message, reconnects with from_seq = last seq + 1.
 * A seat token the server no longer accepts is forgotten and the room followed as a spectator. */
export function follow(roomId: string, seatToken: string, onUpdate: (u: Update) => void,
                       onOnline: (online: boolean) => void): () => void {
  let token = seatToken;
  const stop = new AbortController();
  (async () => {
    const key = `hand.next.${roomId}.${token ? "seat" : "watch"}`;
    let next = BigInt(localStorage.getItem(key) ?? "0");
    let pause = 200;
    while (!stop.signal.aborted) {
      const attempt = new AbortController();
      let wait: number | null = null;
      const quit = () => attempt.abort();
      stop.signal.addEventListener("abort", quit);
      streamStats.drop = quit; // a dropped connection, as far as this loop can tell
      try {
        // at the room's owner (owner.ts: a ROOM_MOVED is followed, an unreachable owner skipped)
        for await (const res of owners.watch({ roomId, seatToken: token, fromSeq: next }, attempt.signal)) {
          observe(res.room?.serverTime); // the server's clock, for the turn timer (clock.ts)
          const u = decode(res);
          if (u.seq !== undefined && u.seq !== next) streamStats.gaps++;
          next = u.next;
          localStorage.setItem(key, String(next));
          pause = 200;
          onOnline(true);
          onUpdate(u);
        }
      } catch (err) {
        // dropped: reconnect below, from the last seq seen + 1 (OVERLOADED: after retry_after_ms)
        wait = retryAfterMs(err);
        if (token && seatTokenDead(err)) { forgetSeat(roomId); token = ""; }
        else await authorizer.refused(err); // a session refused: renewed before the next attempt
      } finally {
        stop.signal.removeEventListener("abort", quit);
      }
      if (stop.signal.aborted) return;
      onOnline(false);
      streamStats.reconnects++;
      // ±20 %: after an instance stops, its pages do not all come back in the same instant
      await sleep(wait ?? pause * (0.8 + Math.random() * 0.4), stop.signal);
      pause = Math.min(pause * 2, 3000);
    }
  })();
  return () => stop.abort();
}
