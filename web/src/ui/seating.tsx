import type { RoomInfo } from "../gen/hand/v1/room_pb";
import { num, t } from "../i18n";
import { playOrder, teams } from "../seating";

/** The seats round the table as the reader sits (docs/clients.md, "Seating"): the reader at the
 * bottom, the seat that plays next to its right, each seat with its dealer and first-player marks,
 * its team and "partner"; in a partnership match a line names your partner and both teams. On a
 * phone the same seats are one line in play order. */
export function Seating({ room, mySeat, turnSeat, name }: {
  room: RoomInfo; mySeat?: number; turnSeat?: number; name: (s?: number) => string;
}) {
  const tx = t();
  const me = mySeat ?? 0;
  const partner = mySeat === undefined ? undefined : room.seats[mySeat]?.partner;
  const both = teams(room);
  const names = (seats: number[]) => seats.map((s) => (s === mySeat ? tx.you : name(s))).join(" + ");
  const mine = both.find((team) => mySeat !== undefined && team.includes(mySeat));
  return <section class="seating" aria-label={tx.seating}>
    {both.length > 0 && <p class="teams">
      {mine ? <>
        <strong>{tx.yourPartner(name(partner))}</strong>
        {" · "}{tx.otherTeam(names(both.find((team) => team !== mine) ?? []))}
      </> : both.map((team, i) => <span class="team">{tx.team(i + 1)}: {names(team)}</span>)}
    </p>}
    <ol class={`ring seats-${room.seats.length}`} dir="ltr" aria-label={tx.counterClockwise}>
      {playOrder(room, me).map(({ seat, place, order }) => {
        const s = room.seats[seat];
        const classes = ["spot", place, seat === turnSeat ? "turn" : "", seat === mySeat ? "me" : "",
          seat === partner ? "partner" : "", s?.away ? "away" : ""].filter(Boolean).join(" ");
        return <li class={classes} style={{ order }} data-seat={seat} data-team={s?.team}
          aria-label={`${tx.seat} ${num(seat + 1)}: ${name(seat)}`}>
          <bdi dir="auto" class="who">{seat === mySeat ? `${name(seat)} (${tx.you})` : name(seat)}</bdi>
          {s?.team !== undefined && <span class={`badge team-${s.team}`}>{tx.team(s.team + 1)}</span>}
          {seat === partner && <span class="badge partner">{tx.partner}</span>}
          {room.dealer === seat && <abbr class="badge mark" title={tx.dealer} aria-label={tx.dealer}>{tx.dealerShort}</abbr>}
          {room.firstPlayer === seat && <abbr class="badge mark" title={tx.firstPlayer} aria-label={tx.firstPlayer}>{tx.firstShort}</abbr>}
          {s?.away && <span class="badge">{tx.away}</span>}
        </li>;
      })}
    </ol>
  </section>;
}
