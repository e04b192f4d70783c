// One tournament (docs/decisions/0029-duplicate-tournaments.md): its settings and seats, entering it,
// the organiser's start (bots' level picked) and close, the player's own table (each deal's room, played
// with the table UI: the seat token GetMyTable gives is kept like any seat's), and once it is closed the
// standings, the per-deal comparison tables and every table's replay (ui/tournament_results.tsx).
import { useEffect, useState } from "preact/hooks";
import { refusal, tournaments } from "../api";
import { BotLevel } from "../gen/hand/v1/room_pb";
import { TournamentStatus, type GetMyTableResponse, type Tournament } from "../gen/hand/v1/tournament_service_pb";
import { mode, num, t } from "../i18n";
import { rememberTournament, saveSeat } from "../session";
import { go, playerName } from "./lobby";
import { Results } from "./tournament_results";
import { LevelSelect, when } from "./tournaments";

const POLL_MS = 1500;

export function TournamentPage({ id }: { id: string }) {
  const tx = t();
  const [tour, setTour] = useState<Tournament | undefined>();
  const [mine, setMine] = useState<GetMyTableResponse | undefined>();
  const [error, setError] = useState("");
  const [name, setName] = useState(playerName() || "Player");
  const [level, setLevel] = useState<BotLevel | undefined>(undefined);
  const [tick, setTick] = useState(0);
  const entered = !!tour?.entrants.some((e) => e.you);

  useEffect(() => {
    let live = true, timer = 0;
    const load = async () => {
      try {
        const r = await tournaments.getTournament({ tournamentId: id });
        if (!live) return;
        setTour(r.tournament);
        const x = r.tournament!;
        if (x.status !== TournamentStatus.OPEN && x.entrants.some((e) => e.you)) {
          const m = await tournaments.getMyTable({ tournamentId: id });
          if (live) setMine(m);
        }
        if (x.status === TournamentStatus.CLOSED) return; // final: nothing more to follow
      } catch (err) { if (live) setError(refusal(err)); }
      if (live) timer = window.setTimeout(load, POLL_MS);
    };
    load();
    return () => { live = false; clearTimeout(timer); };
  }, [id, tick]);

  const call = async (work: () => Promise<{ tournament?: Tournament }>) => {
    setError("");
    try { const r = await work(); setTour(r.tournament); setTick((n) => n + 1); } catch (err) { setError(refusal(err)); }
  };
  const enter = () => { localStorage.setItem("hand.name", name); return call(() => tournaments.enterTournament({ tournamentId: id, playerName: name })); };
  const start = () => call(() => tournaments.startTournament({ tournamentId: id, botLevel: level ?? tour?.botLevel }));
  const close = () => call(() => tournaments.closeTournament({ tournamentId: id }));
  const play = (roomId: string, token: string) => {
    const me = tour?.entrants.find((e) => e.you);
    saveSeat({ roomId, token, seat: mine?.seat ?? 0, name: me?.name ?? name });
    rememberTournament(roomId, id);
    go(`/room/${roomId}`);
  };

  if (!tour) return <main class="panel">{error ? <p role="alert" class="error">{error}</p> : <p role="status">…</p>}</main>;
  const open = tour.status === TournamentStatus.OPEN, running = tour.status === TournamentStatus.RUNNING;
  const closed = tour.status === TournamentStatus.CLOSED;
  const next = mine?.rooms.find((r) => !r.over);
  return <main class="tournament">
    <section class="panel">
      <h2>{tx.tournaments}: {tour.name}</h2>
      {error && <p role="alert" class="error">{error}</p>}
      <p role="status" class="tournament-status">{tx.statusOf[tour.status]}
        {!open && ` · ${tx.dealsPlayed(tour.dealsPlayed, tour.dealsTotal)}`}</p>
      <p>{tx.organiser}: {tour.organiserName} · {mode(tour.rules?.preset ?? "hand")[0]} · {tx.deals} {num(tour.deals)} ·{" "}
        {tx.tablesCount} {tour.tables ? num(tour.tables) : tx.openEntry} · {tx.seats} {num(tour.seatCount)} · {tx.rounds} {num(tour.rounds)}</p>
      {open && tour.startAt > 0 && <p>{tx.startsAt(when(tour.startAt))}</p>}
      <p class="hint">{tx.scoring}</p>
    </section>
    <section class="panel" aria-label={tx.entrants}>
      <h3>{tx.entrants}</h3>
      <ul class="seats">{tour.entrants.map((e) => <li>
        {e.table !== undefined && `${tx.tableNo(e.table)} · ${tx.seat} ${num((e.seat ?? 0) + 1)}: `}
        {e.bot ? tx.bot : e.name}{e.you && ` · ${tx.you}`}
      </li>)}</ul>
      {open && !entered && <form class="form row" onSubmit={(e) => { e.preventDefault(); enter(); }}>
        <label>{tx.yourName}<input value={name} onInput={(e) => setName(e.currentTarget.value)} maxLength={64} /></label>
        <button type="submit" class="primary">{tx.enter}</button>
      </form>}
      {open && entered && <p>{tx.entered}</p>}
      {open && tour.youOrganise && <div class="row">
        <LevelSelect value={level ?? tour.botLevel ?? BotLevel.BEGINNER} onChange={setLevel} />
        <button type="button" class="primary" onClick={start}>{tx.startTournament}</button>
      </div>}
      {running && tour.youOrganise && <button type="button" onClick={close}
        disabled={tour.dealsPlayed < tour.dealsTotal}>{tx.closeTournament}</button>}
    </section>
    {mine && !closed && <section class="panel" aria-label={tx.myTable}>
      <h3>{tx.myTable}: {tx.tableNo(mine.table)} · {tx.seat} {num((mine.seat ?? 0) + 1)}</h3>
      <ul class="tables">{mine.rooms.map((r) => <li>
        <span>{tx.dealNo(r.deal)}</span>
        {r.over ? <span class="badge">{tx.dealOver}</span>
          : <button type="button" class="primary" onClick={() => play(r.roomId, r.seatToken)}>{tx.playDeal(r.deal)}</button>}
      </li>)}</ul>
      {!next && mine.rooms.length < tour.deals && <p>{tx.nextDealSoon}</p>}
    </section>}
    {!closed && !open && <p class="panel">{tx.resultsHidden}</p>}
    {closed && <Results id={id} />}
  </main>;
}
