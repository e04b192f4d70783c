import { useEffect, useState } from "preact/hooks";
import { rooms } from "../api";
import { RoomStatus, type RoomInfo } from "../gen/hand/v1/room_pb";
import type { RoomSummary } from "../gen/hand/v1/room_service_pb";
import { mode, num, t } from "../i18n";
import { seatName } from "../names";
import { type Seat } from "../session";

/** Each room's RoomInfo (GetRoom), asked once per room id and kept while the lobby is open: what a
 * listed table does not carry (host, rounds, turn time) and whether one of the player's rooms still runs. */
function useRooms(ids: string[], again = false): Map<string, RoomInfo> {
  const [info, setInfo] = useState(new Map<string, RoomInfo>());
  const key = ids.join(",");
  useEffect(() => {
    let live = true;
    for (const id of ids) {
      if (info.has(id) && !again) continue;
      rooms.getRoom({ roomId: id }).then((r) => live && r.room && setInfo((m) => new Map(m).set(id, r.room!)), () => {});
    }
    return () => { live = false; };
  }, [key]);
  return info;
}

/** The public tables with a free seat: mode, who hosts, rounds, turn time and seats taken. */
export function PublicTables({ list, join, go }: { list: RoomSummary[]; join: (roomId: string) => void; go: (p: string) => void }) {
  const tx = t();
  const info = useRooms(list.map((r) => r.roomId));
  return <section class="panel">
    <h2>{tx.publicTables}</h2>
    {list.length === 0 ? <p>{tx.noTables}</p> : <ul class="tables">
      {list.map((r) => {
        const room = info.get(r.roomId);
        return <li aria-label={`${tx.roomLabel} ${mode(r.preset)[0]}`}>
          <span>{mode(r.preset)[0]} · <bdi dir="ltr">{num(r.seatCount - r.freeSeats)}/{num(r.seatCount)}</bdi>
            {room && <span class="details"> · {tx.hostedBy(seatName(room, room.hostSeat))} · {tx.roundsN(room.options?.rounds ?? 0)}
              {" · "}{tx.perTurn(room.turnSeconds)}</span>}</span>
          <button type="button" onClick={() => join(r.roomId)}>{tx.join}</button>
          <button type="button" onClick={() => go(`/room/${r.roomId}/watch`)}>{tx.watch}</button>
        </li>;
      })}
    </ul>}
  </section>;
}

/** The public tables whose match is being played (ListRooms with `playing`): watch one. */
export function PlayingTables({ list, go }: { list: RoomSummary[]; go: (p: string) => void }) {
  const tx = t();
  const info = useRooms(list.map((r) => r.roomId), true);
  if (!list.length) return null;
  return <section class="panel" aria-label={tx.tablesPlaying}>
    <h2>{tx.tablesPlaying}</h2>
    <ul class="tables">{list.map((r) => {
      const room = info.get(r.roomId);
      return <li>
        <span>{mode(r.preset)[0]} · {tx.seatsN(r.seatCount)}
          {room && <span class="details"> · {tx.hostedBy(seatName(room, room.hostSeat))} · {tx.round} {num(room.roundNo)}
            /{num(room.options?.rounds ?? 0)}</span>}</span>
        <button type="button" onClick={() => go(`/room/${r.roomId}/watch`)}>{tx.watch}</button>
      </li>;
    })}</ul>
  </section>;
}

/** The rooms this browser holds a seat in (session.ts: the saved seats) that are not over: the way
 * back to a running (or waiting) table. */
export function MyTables({ seats, go }: { seats: Seat[]; go: (p: string) => void }) {
  const tx = t();
  const info = useRooms(seats.map((s) => s.roomId), true);
  const open = seats.filter((s) => { const st = info.get(s.roomId)?.status; return st === RoomStatus.WAITING || st === RoomStatus.PLAYING; });
  if (!open.length) return null;
  return <section class="panel" aria-label={tx.yourTables}>
    <h2>{tx.yourTables}</h2>
    <ul class="tables">{open.map((s) => {
      const room = info.get(s.roomId)!;
      return <li>
        <span>{mode(room.preset)[0]} · {room.status === RoomStatus.PLAYING ? `${tx.round} ${num(room.roundNo)}` : tx.waiting}</span>
        <button type="button" class="primary" onClick={() => go(`/room/${s.roomId}`)}>{tx.backToTable}</button>
      </li>;
    })}</ul>
  </section>;
}
