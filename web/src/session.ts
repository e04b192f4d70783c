// Seat tokens kept in the browser, and a Watch that resumes from the last seq + 1 after a drop.
import { rooms } from "./api";
import { decode, type Update } from "./events";

export interface Seat { roomId: string; token: string; seat: number; name: string; }

export function saveSeat(s: Seat): void { localStorage.setItem(`hand.seat.${s.roomId}`, JSON.stringify(s)); }
export function loadSeat(roomId: string): Seat | null {
  const raw = localStorage.getItem(`hand.seat.${roomId}`);
  return raw ? (JSON.parse(raw) as Seat) : null;
}
export function playerId(): string {
  let id = localStorage.getItem("hand.player");
  if (!id) { id = newId(); localStorage.setItem("hand.player", id); }
  return id;
}
export function newId(): string {
  return globalThis.crypto?.randomUUID?.() ?? `${Date.now()}-${Math.random().toString(36).slice(2)}`;
}

/** Follow a room: calls onUpdate for every message, reconnects with from_seq = last seq + 1. */
export function follow(roomId: string, token: string, onUpdate: (u: Update) => void,
                       onOnline: (online: boolean) => void): () => void {
  const stop = new AbortController();
  (async () => {
    const key = `hand.next.${roomId}.${token ? "seat" : "watch"}`;
    let next = BigInt(localStorage.getItem(key) ?? "0");
    let pause = 200;
    while (!stop.signal.aborted) {
      try {
        for await (const res of rooms.watch({ roomId, seatToken: token, fromSeq: next }, { signal: stop.signal })) {
          const u = decode(res);
          next = u.next;
          localStorage.setItem(key, String(next));
          pause = 200;
          onOnline(true);
          onUpdate(u);
        }
      } catch {
        if (stop.signal.aborted) return;
      }
      onOnline(false);
      await new Promise((r) => setTimeout(r, pause));
      pause = Math.min(pause * 2, 3000);
    }
  })();
  return () => stop.abort();
}
