import { useEffect, useState } from "preact/hooks";
import { ledger, refusal } from "../api";
import type { LeaderboardEntry } from "../gen/hand/v1/ledger_service_pb";
import { t } from "../i18n";

export function Leaderboard() {
  const tx = t();
  const [rows, setRows] = useState<LeaderboardEntry[]>([]);
  const [error, setError] = useState("");
  useEffect(() => { ledger.getLeaderboard({ pageSize: 50 }).then((r) => setRows(r.entries), (e) => setError(refusal(e))); }, []);
  return <main class="panel">
    <h2>{tx.leaderboard}</h2>
    {error && <p role="alert" class="error">{error}</p>}
    <table><thead><tr><th>#</th><th>{tx.player}</th><th>{tx.rating}</th><th>{tx.matches}</th><th>{tx.wins}</th></tr></thead>
      <tbody>{rows.map((r) => <tr><td>{r.rank}</td><td>{r.stats?.name || r.stats?.handle}</td>
        <td>{r.stats?.rating?.ordinal.toFixed(1)}</td><td>{r.stats?.matches}</td><td>{r.stats?.wins}</td></tr>)}</tbody></table>
  </main>;
}
