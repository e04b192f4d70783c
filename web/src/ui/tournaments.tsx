// Duplicate tournaments (docs/decisions/0029-duplicate-tournaments.md): the list, newest first, and the
// form that creates one (mode, rounds, seats, deals, tables or open entry, bots' level, start time). A
// tournament created with a start time starts by itself then; its own page is ui/tournament.tsx.
import { useEffect, useState } from "preact/hooks";
import { refusal, tournaments } from "../api";
import { BotLevel } from "../gen/hand/v1/room_pb";
import type { Tournament } from "../gen/hand/v1/tournament_service_pb";
import { getLang, mode, num, t } from "../i18n";
import { go, playerName, PRESETS } from "./lobby";

/** A Unix time in seconds as the page's language writes a date and time. */
export function when(seconds: number): string {
  return new Date(seconds * 1000).toLocaleString(getLang() === "ar" ? "ar-u-nu-arab" : "en-GB",
    { dateStyle: "medium", timeStyle: "short" });
}

/** The bots' level picker (shared by the create form and the organiser's start). */
export function LevelSelect({ value, onChange }: { value: BotLevel; onChange: (v: BotLevel) => void }) {
  const tx = t();
  return <label>{tx.level}<select value={value} onChange={(e) => onChange(Number(e.currentTarget.value))}>
    <option value={BotLevel.BEGINNER}>{tx.beginner}</option>
    <option value={BotLevel.MIDDLE}>{tx.middle}</option>
    <option value={BotLevel.STRONG}>{tx.strong}</option>
    <option value={BotLevel.EXPERT}>{tx.expert}</option>
  </select></label>;
}

export function Tournaments() {
  const tx = t();
  const [list, setList] = useState<Tournament[]>([]);
  const [error, setError] = useState("");
  const [title, setTitle] = useState("");
  const [name, setName] = useState(playerName() || "Player");
  const [preset, setPreset] = useState("hand");
  const [rounds, setRounds] = useState(1);
  const [seats, setSeats] = useState(4);
  const [deals, setDeals] = useState(2);
  const [tables, setTables] = useState(0);
  const [level, setLevel] = useState(BotLevel.BEGINNER);
  const [turn, setTurn] = useState(30);
  const [startAt, setStartAt] = useState("");

  useEffect(() => {
    let live = true;
    const load = () => tournaments.listTournaments({ pageSize: 50 })
      .then((r) => live && setList(r.tournaments), (e) => live && setError(refusal(e)));
    load();
    const timer = setInterval(load, 3000);
    return () => { live = false; clearInterval(timer); };
  }, []);

  const create = async (e: Event) => {
    e.preventDefault();
    localStorage.setItem("hand.name", name);
    try {
      const r = await tournaments.createTournament({ name: title, organiserName: name, rules: { preset }, rounds,
        seatCount: seats, deals, tables, botLevel: level, turnSeconds: turn,
        startAt: startAt ? new Date(startAt).getTime() / 1000 : 0 });
      go(`/tournament/${r.tournament!.tournamentId}`);
    } catch (err) { setError(refusal(err)); }
  };

  return <main class="tournaments">
    {error && <p role="alert" class="error">{error}</p>}
    <section class="panel">
      <h2>{tx.tournaments}</h2>
      {list.length === 0 ? <p>{tx.noTournaments}</p> : <ul class="tables">
        {list.map((x) => <li>
          <a href={`#/tournament/${x.tournamentId}`}>{x.name}</a>
          <span>{mode(x.rules?.preset ?? "hand")[0]} · {tx.statusOf[x.status]} · {tx.entrants} {num(x.entrants.filter((e) => !e.bot).length)}
            {x.startAt > 0 && x.status === 1 ? ` · ${tx.startsAt(when(x.startAt))}` : ""}</span>
        </li>)}
      </ul>}
    </section>
    <section class="panel">
      <h2>{tx.createTournament}</h2>
      <form onSubmit={create} class="form">
        <label>{tx.tournamentName}<input value={title} onInput={(e) => setTitle(e.currentTarget.value)} maxLength={64} required /></label>
        <label>{tx.yourName}<input value={name} onInput={(e) => setName(e.currentTarget.value)} maxLength={64} /></label>
        <label>{tx.mode}<select value={preset} onChange={(e) => setPreset(e.currentTarget.value)}>
          {PRESETS.map((p) => <option value={p}>{mode(p)[0]}</option>)}</select></label>
        <label>{tx.rounds}<select value={rounds} onChange={(e) => setRounds(Number(e.currentTarget.value))}>
          {[1, 3, 5, 7, 9].map((n) => <option value={n}>{num(n)}</option>)}</select></label>
        <label>{tx.seats}<select value={seats} onChange={(e) => setSeats(Number(e.currentTarget.value))}>
          {[2, 3, 4, 5].map((n) => <option value={n}>{num(n)}</option>)}</select></label>
        <label>{tx.deals}<select value={deals} onChange={(e) => setDeals(Number(e.currentTarget.value))}>
          {[1, 2, 3, 4, 5, 6, 7, 8, 9].map((n) => <option value={n}>{num(n)}</option>)}</select></label>
        <label>{tx.tablesCount}<select value={tables} onChange={(e) => setTables(Number(e.currentTarget.value))}>
          <option value={0}>{tx.openEntry}</option>
          {Array.from({ length: 16 }, (_, i) => i + 1).map((n) => <option value={n}>{num(n)}</option>)}</select></label>
        <LevelSelect value={level} onChange={setLevel} />
        <label>{tx.turnTime}<input type="number" min={5} max={300} value={turn} onInput={(e) => setTurn(Number(e.currentTarget.value))} /></label>
        <label>{tx.startTime}<input type="datetime-local" value={startAt} onInput={(e) => setStartAt(e.currentTarget.value)} /></label>
        <button type="submit" class="primary">{tx.create}</button>
      </form>
    </section>
  </main>;
}
