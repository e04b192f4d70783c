// How the table sits, from the room's own facts (RoomInfo: each seat's next_seat, team and partner,
// the round's dealer and first player; docs/clients.md, "Seating"). Nothing here is computed from
// the rules: the server says who plays after whom and who partners whom.
import type { RoomInfo } from "./gen/hand/v1/room_pb";

/** Where a seat sits as the reader looks at the table: the reader at the bottom, the seat that plays
 * after the reader to its right (play goes counter-clockwise), and so on round the table. */
export type Place = "bottom" | "right" | "top-right" | "top" | "top-left" | "left";
const PLACES: Record<number, Place[]> = {
  2: ["bottom", "top"],
  3: ["bottom", "right", "left"],
  4: ["bottom", "right", "top", "left"],
  5: ["bottom", "right", "top-right", "top-left", "left"],
};

export interface SeatSpot { seat: number; place: Place; order: number }

/** Every seat in play order from ``from`` (the reader's seat; a spectator: seat 0), following
 * RoomSeat.next_seat, each with its place round the table. */
export function playOrder(room: RoomInfo, from = 0): SeatSpot[] {
  const n = room.seats.length;
  const places = PLACES[n] ?? Array.from({ length: n }, (_, i) => (i === 0 ? "bottom" : "top") as Place);
  const out: SeatSpot[] = [];
  let seat = from;
  for (let i = 0; i < n && seat !== undefined && !out.some((s) => s.seat === seat); i++) {
    out.push({ seat, place: places[i], order: i });
    seat = room.seats[seat]?.nextSeat ?? (seat + 1) % n;
  }
  return out;
}

/** A partnership match's two teams (each its seats, in seat order); [] when every seat plays alone. */
export function teams(room: RoomInfo): number[][] {
  const by = new Map<number, number[]>();
  for (const s of room.seats) {
    if (s.team === undefined || s.seat === undefined) continue;
    by.set(s.team, [...(by.get(s.team) ?? []), s.seat]);
  }
  return [...by.entries()].sort(([a], [b]) => a - b).map(([, seats]) => seats);
}
