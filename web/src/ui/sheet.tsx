import type { ComponentChildren } from "preact";
import { useEffect, useState } from "preact/hooks";
import { ledger } from "../api";
import type { RoomInfo } from "../gen/hand/v1/room_pb";
import type { RoundResult } from "../gen/hand/v1/state_pb";
import type { ScoreSheet as Sheet } from "../gen/hand/v1/ledger_service_pb";
import { num, t } from "../i18n";
import { seatName } from "../names";
import { Num } from "./num";
import { Card } from "./card";
import { go } from "./lobby";
import { tournamentOf } from "../session";

/** After a round: every seat's cards left and score, the standings; at the end, the match result. */
export function ScoreSheet({ roomId, roundNo, result, room, over, onClose, minSeq, children }: {
  roomId: string; roundNo: number; result: RoundResult; room: RoomInfo; over: boolean; onClose: () => void;
  /** The last seq the page saw: the ledger answers once it has recorded the room that far. */
  minSeq?: bigint;
  /** Shown first: the next round's start (ui/next_round.tsx). */
  children?: ComponentChildren;
}) {
  const tx = t();
  const [sheet, setSheet] = useState<Sheet | undefined>();
  // the seats of people who left mid-match (MatchResult.left_seats; decision 0027): flagged below
  const [left, setLeft] = useState<number[]>([]);
  useEffect(() => {
    if (!over) return;
    let live = true, tries = 0;
    const load = (): void => {
      Promise.all([ledger.getScoreSheet({ roomId, minSeq }), ledger.getMatchResult({ roomId, minSeq })])
        .then(([r, m]) => { if (live) { setSheet(r.sheet); setLeft(m.result?.humanLeft ? m.result.leftSeats : []); } },
          () => { if (live && ++tries < 5) setTimeout(load, 500); }); // LEDGER_BEHIND after its bounded wait: again
    };
    load();
    return () => { live = false; };
  }, [over, roomId, minSeq]);
  const name = (s?: number) => seatName(room, s);
  const tournament = tournamentOf(roomId); // a tournament's table: the way back to it
  /** A seat's team in a partnership match (RoomSeat.team; the standings' unit), else undefined. */
  const team = (s?: number) => (s === undefined ? undefined : room.seats[s]?.team);
  const winners = room.winners.map((u) => room.standings.length && room.options?.partnership
    ? `${name(u)} + ${name((u + 2) % room.seatCount)}` : name(u));
  return <div class="modal" role="dialog" aria-label={tx.scoreSheet}>
    <div class="panel sheet">
      {children}
      <h2>{tx.scoreSheet} — {tx.round} {num(roundNo)}</h2>
      <table>
        <thead><tr><th>{tx.player}</th><th>{tx.cardsLeft}</th><th>{tx.score}</th><th>{room.options?.partnership ? tx.teamTotal : tx.total}</th></tr></thead>
        <tbody>{result.seats.map((s) => <tr>
          <td>{name(s.seat)}{left.includes(s.seat ?? -1) && " "}{left.includes(s.seat ?? -1) && <span class="badge quit">{tx.leftMidMatch}</span>}</td>
          <td class="left">{s.cardsLeft.map((c) => <Card id={c} small />)}</td>
          <td class="score"><Num v={s.score} /></td>
          <td>{team(s.seat) !== undefined && <span class="badge">{tx.team((team(s.seat) ?? 0) + 1)}</span>}{" "}
            <Num v={room.standings.find((x) => x.unit === (team(s.seat) ?? s.seat))?.total} /></td>
        </tr>)}</tbody>
      </table>
      {sheet && (over || sheet.rounds.length > 1) && <p class="played">{tx.roundsPlayed(sheet.rounds.length)}</p>}
      {over && <>
        <h2>{tx.matchOver}</h2>
        <p>{winners.length > 1 ? tx.winners : tx.winner}: <strong>{winners.join(", ")}</strong></p>
        {left.length > 0 && <p role="note" class="quit-note">{tx.quitNote(left.map((u) => name(u)).join(", "))}</p>}
        <div class="row">
          {tournament && <button type="button" class="primary" onClick={() => go(`/tournament/${tournament}`)}>{tx.backToTournament}</button>}
          <button type="button" onClick={() => go(`/replay/${roomId}`)}>{tx.replay}</button>
          <button type="button" onClick={() => go("/leaders")}>{tx.leaderboard}</button>
          <button type="button" onClick={() => go("/")}>{tx.lobby}</button>
        </div>
      </>}
      <button type="button" onClick={onClose}>{tx.close}</button>
    </div>
  </div>;
}
