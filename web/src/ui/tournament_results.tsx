// A closed tournament's results (GetTournamentStandings): the standings (place, who, matchpoints, raw
// total), one comparison table per deal and seat position (every table's score and matchpoints), and
// every table's room of every deal, each a link to its replay (ui/replay.tsx).
import { useEffect, useState } from "preact/hooks";
import { refusal, tournaments } from "../api";
import type { GetTournamentStandingsResponse, TournamentEntrant } from "../gen/hand/v1/tournament_service_pb";
import { num, t } from "../i18n";
import { Num } from "./num";

/** Matchpoints keep their half points (1.5), in the page's digits. */
function points(v: number): string { return num(v, Number.isInteger(v) ? 0 : 1); }

function who(e: TournamentEntrant | undefined): string {
  const tx = t();
  if (!e) return "";
  return `${e.bot ? tx.bot : e.name}${e.you ? ` (${tx.you})` : ""}`;
}

export function Results({ id }: { id: string }) {
  const tx = t();
  const [data, setData] = useState<GetTournamentStandingsResponse | undefined>();
  const [error, setError] = useState("");
  useEffect(() => {
    let live = true;
    tournaments.getTournamentStandings({ tournamentId: id })
      .then((r) => live && setData(r), (e) => live && setError(refusal(e)));
    return () => { live = false; };
  }, [id]);
  if (error) return <p role="alert" class="error">{error}</p>;
  if (!data) return <p>…</p>;
  const deals = [...new Set(data.rooms.map((r) => r.deal))].sort((a, b) => a - b);
  const tables = [...new Set(data.rooms.map((r) => r.table))].sort((a, b) => a - b);
  return <>
    <section class="panel" aria-label={tx.standings}>
      <h3>{tx.standings}</h3>
      <table class="standings">
        <thead><tr><th>{tx.place}</th><th>{tx.player}</th><th>{tx.tablesCount}</th><th>{tx.matchpoints}</th><th>{tx.rawTotal}</th></tr></thead>
        <tbody>{data.standings.map((s) => <tr class={s.entrant?.you ? "me" : undefined}>
          <td>{num(s.place)}</td><td>{who(s.entrant)}</td>
          <td>{tx.tableNo(s.entrant?.table ?? 0)} · {tx.seat} {num((s.entrant?.seat ?? 0) + 1)}</td>
          <td>{points(s.matchpoints)}</td><td><Num v={s.rawTotal} /></td>
        </tr>)}</tbody>
      </table>
    </section>
    <section class="panel" aria-label={tx.byDeal}>
      <h3>{tx.byDeal}</h3>
      {data.comparisons.map((c) => <table class="comparison" aria-label={tx.dealSeat(c.deal, (c.seat ?? 0) + 1)}>
        <caption>{tx.dealSeat(c.deal, (c.seat ?? 0) + 1)}</caption>
        <thead><tr><th>{tx.tablesCount}</th><th>{tx.player}</th><th>{tx.score}</th><th>{tx.matchpoints}</th></tr></thead>
        <tbody>{c.results.map((x) => <tr class={x.entrant?.you ? "me" : undefined}>
          <td>{tx.tableNo(x.table)}</td><td>{who(x.entrant)}</td><td><Num v={x.score} /></td><td>{points(x.matchpoints)}</td>
        </tr>)}</tbody>
      </table>)}
    </section>
    <section class="panel" aria-label={tx.replays}>
      <h3>{tx.replays}</h3>
      <ul class="tables">{tables.map((tb) => <li>
        <span>{tx.tableNo(tb)}</span>
        {deals.map((d) => {
          const room = data.rooms.find((r) => r.table === tb && r.deal === d);
          return room && <a href={`#/replay/${room.roomId}`}>{tx.replay}: {tx.tableNo(tb)}, {tx.dealNo(d)}</a>;
        })}
      </li>)}</ul>
    </section>
  </>;
}
