import { useEffect, useState } from "preact/hooks";
import { ledger, refusal } from "../api";
import type { LeaderboardEntry, PlayerStats } from "../gen/hand/v1/ledger_service_pb";
import { num, t } from "../i18n";
import { Num } from "./num";

/** The leaderboard, and the signed-in player's own statistics above it (their row marked). */
export function Leaderboard() {
  const tx = t();
  const [rows, setRows] = useState<LeaderboardEntry[]>([]);
  const [me, setMe] = useState<PlayerStats | null | undefined>(undefined); // undefined: still asking
  const [error, setError] = useState("");
  useEffect(() => {
    ledger.getLeaderboard({ pageSize: 50 }).then((r) => setRows(r.entries), (e) => setError(refusal(e)));
    ledger.getPlayerStats({}).then((r) => setMe(r.stats ?? null), () => setMe(null)); // no match yet, or a guest
  }, []);
  return <main class="panel">
    <h2>{tx.leaderboard}</h2>
    {error && <p role="alert" class="error">{error}</p>}
    <section aria-label={tx.yourStats} class="me">
      {me ? <p>{me.name || me.handle} · {tx.rating} <Num v={me.rating?.ordinal} fraction={1} /> · {tx.matches} {num(me.matches)} · {tx.wins} {num(me.wins)}</p>
        : me === null ? <p>{tx.noStatsYet}</p> : null}
    </section>
    <table><thead><tr><th>#</th><th>{tx.player}</th><th>{tx.rating}</th><th>{tx.matches}</th><th>{tx.wins}</th></tr></thead>
      <tbody>{rows.map((r) => <tr class={me && r.stats?.handle === me.handle ? "me" : undefined}
        aria-current={me && r.stats?.handle === me.handle ? "true" : undefined}>
        <td>{num(r.rank)}</td><td>{r.stats?.name || r.stats?.handle}</td>
        <td class="rating"><Num v={r.stats?.rating?.ordinal} fraction={1} /></td><td>{num(r.stats?.matches ?? 0)}</td><td>{num(r.stats?.wins ?? 0)}</td></tr>)}</tbody></table>
  </main>;
}
