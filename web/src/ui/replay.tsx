import { useEffect, useState } from "preact/hooks";
import { ledger, refusal } from "../api";
import { DealVerdict, type GetReplayResponse, type VerifyDealResponse } from "../gen/hand/v1/ledger_service_pb";
import type { RoomEvent } from "../gen/hand/v1/room_events_pb";
import { num, t } from "../i18n";
import { seatName } from "../names";
import { eventLine } from "../events";
import { loadSeat } from "../session";
import { Card } from "./card";
import { Num } from "./num";

/** How long autoplay shows each step at 1×; the speeds a viewer can choose (kept in localStorage). */
const AUTOPLAY_MS = 700;
export const SPEEDS = [0.5, 1, 2, 4];
const savedSpeed = () => { const v = Number(localStorage.getItem("hand.replaySpeed")); return SPEEDS.includes(v) ? v : 1; };

/** LedgerService.GetReplay: the position after any archived event, step by step. A finished match opens
 * at its first deal; start / end, one step, one round (to the previous / next deal) and autoplay move
 * through it. Every step shows the table as of that step: the seats and the score so far (the room's
 * standings after it), and once the match is over every seat's hand (the full position, which the
 * ledger gives to anyone once the match is over: docs/privacy.md); while it runs, the public view only,
 * following the archive at its latest step. */
export function Replay({ roomId }: { roomId: string }) {
  const tx = t();
  const mine = loadSeat(roomId)?.seat;
  const [step, setStep] = useState<bigint | undefined>(undefined); // undefined: the latest, followed
  const [data, setData] = useState<GetReplayResponse | undefined>();
  const [events, setEvents] = useState<RoomEvent[]>([]); // every archived event (for the round jumps)
  const [playing, setPlaying] = useState(false);
  const [speed, setSpeedState] = useState(savedSpeed);
  const setSpeed = (v: number) => { localStorage.setItem("hand.replaySpeed", String(v)); setSpeedState(v); };
  const [error, setError] = useState("");
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    ledger.getReplay({ roomId, step, fromSeq: step ?? 0n })
      .then((r) => {
        if (!live) return;
        setData(r); setError("");
        if (step !== undefined) return;
        setEvents(r.events);
        const first = r.events.find((e) => e.event.case === "roundDealt");
        // a finished match opens at its first deal; a running one follows the archive (the ledger trails the room)
        if (r.complete && first) setStep(first.seq);
        else if (!r.complete) setTimeout(() => live && setTick((n) => n + 1), 1000);
      }, (e) => live && (setError(refusal(e)), setPlaying(false)));
    return () => { live = false; };
  }, [roomId, step, tick]);
  const at = data?.step ?? 0n, count = data?.eventCount ?? 0n;
  const end = count > 0n ? count - 1n : 0n;
  // autoplay: the next step once this one is shown, until the end
  useEffect(() => {
    if (!playing || !data) return;
    if (at >= end) { setPlaying(false); return; }
    const timer = setTimeout(() => setStep(at + 1n), AUTOPLAY_MS / speed);
    return () => clearTimeout(timer);
  }, [playing, data, speed]);
  const deals = events.filter((e) => e.event.case === "roundDealt").map((e) => e.seq);
  const prevRound = deals.filter((d) => d < at).pop() ?? 0n;
  const nextRound = deals.find((d) => d > at) ?? end;
  const go = (s: bigint) => { setPlaying(false); setStep(s); };
  const v = data?.view, room = data?.room, pos = data?.position;
  const last = data?.events[data.events.length - 1];
  const name = (s?: number) => seatName(room, s);
  const seats = Array.from({ length: room?.seatCount ?? v?.n ?? 0 }, (_, s) => s);
  const unit = (s: number) => room?.seats[s]?.team ?? s;
  const total = (s: number) => room?.standings.find((x) => x.unit === unit(s))?.total ?? 0;
  const roundScore = (s: number) => v?.result?.seats.find((x) => x.seat === s)?.score;
  return <main class="replay panel">
    <h2>{tx.replay}{v ? <> — {tx.round} {num(v.roundNo)}</> : null}</h2>
    {error && <p role="alert" class="error">{error}</p>}
    <p role="status">{tx.step} <bdi dir="ltr">{num(at)} / {num(end)}</bdi> · {last ? eventLine(last, room) : ""}</p>
    <div class="row" role="group" aria-label={tx.replaySteps}>
      <button type="button" disabled={at <= 0n} onClick={() => go(0n)}>{tx.toStart}</button>
      <button type="button" disabled={at <= 0n} onClick={() => go(prevRound)}>{tx.prevRound}</button>
      <button type="button" disabled={at <= 0n} onClick={() => go(at - 1n)}>{tx.stepBack}</button>
      <button type="button" class="primary" disabled={!playing && at >= end}
        onClick={() => { if (!playing && step === undefined) setStep(at); setPlaying(!playing); }}>{playing ? tx.pause : tx.play}</button>
      <button type="button" disabled={at >= end} onClick={() => go(at + 1n)}>{tx.stepForward}</button>
      <button type="button" disabled={at >= end} onClick={() => go(nextRound)}>{tx.nextRound}</button>
      <button type="button" disabled={at >= end} onClick={() => go(end)}>{tx.toEnd}</button>
      <label>{tx.speed}<select value={speed} onChange={(e) => setSpeed(Number(e.currentTarget.value))}>
        {SPEEDS.map((v) => <option value={v}>{num(v)}×</option>)}</select></label>
    </div>
    {data && <section aria-label={tx.scoreSoFar} class="replay-score">
      <h3>{tx.scoreSoFar}</h3>
      <table>
        <thead><tr><th>{tx.player}</th><th>{tx.cardsLeft}</th>{v?.result && <th>{tx.score}</th>}
          <th>{room?.options?.partnership ? tx.teamTotal : tx.total}</th></tr></thead>
        <tbody>{seats.map((s) => <tr class={v?.turn?.seat === s ? "turn" : undefined}>
          <td>{name(s)}{s === mine && <span class="badge">{tx.you}</span>}
            {room?.seats[s]?.team !== undefined && <span class="badge">{tx.team((room.seats[s].team ?? 0) + 1)}</span>}
            {v?.turn?.seat === s && !v.result && <span class="badge">{tx.turnNow}</span>}</td>
          <td>{v ? num(v.seats[s]?.handSize ?? 0) : "–"}</td>
          {v?.result && <td class="score"><Num v={roundScore(s)} /></td>}
          <td class="score"><Num v={total(s)} /></td>
        </tr>)}</tbody>
      </table>
    </section>}
    {v ? <>
      <div class="centre">
        <div><h3>{tx.stock}</h3><p>{tx.cards(v.stockSize)}</p></div>
        <div><h3>{tx.pile}</h3><div class="cards">{v.pile.slice(-6).map((c) => <Card id={c} small />)}</div></div>
      </div>
      <h3>{tx.table}</h3>
      {v.melds.map((m) => <div class="meld"><span class="owner">{tx.meldBy(name(m.owner))}</span>{m.cards.map((c) => <Card id={c} small />)}</div>)}
      <h3>{tx.hands}</h3>
      {pos ? <div class="opponents">{pos.seats.map((st, s) =>
        <section class={`opponent${v.turn?.seat === s && !v.result ? " turn" : ""}`} aria-label={name(s)} data-seat={s}>
          <strong>{name(s)}</strong>{s === mine && <span class="badge">{tx.you}</span>}
          {st.opened && <span class="badge open">{tx.opened}</span>} · {tx.cards(st.hand.length)}
          <div class="cards">{st.hand.map((c) => <Card id={c} small />)}</div>
        </section>)}</div>
        : <p>{tx.handsAfterMatch}</p>}
    </> : data && <p class="not-dealt">{tx.notDealt}</p>}
    <VerifyDeal roomId={roomId} />
  </main>;
}

const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");

/** LedgerService.VerifyDeal (decisions 0022, 0034): each round's commitment, revealed seed and verdict,
 * checked from the room's public record; for hand-deal/2, the room's match commitment (published
 * before any seat seed) and the match secret revealed at the match's end. */
function VerifyDeal({ roomId }: { roomId: string }) {
  const tx = t();
  const [res, setRes] = useState<VerifyDealResponse | undefined>();
  const [error, setError] = useState("");
  const verdict = (v: DealVerdict) => v === DealVerdict.VERIFIED ? tx.verified : v === DealVerdict.FAILED ? tx.failed
    : v === DealVerdict.PENDING ? tx.pending : tx.unverifiable;
  return <section class="verify-deal" aria-label={tx.verifyDeal}>
    <button type="button" onClick={() => ledger.verifyDeal({ roomId }).then((r) => { setRes(r); setError(""); },
      (e) => setError(refusal(e)))}>{tx.verifyDeal}</button>
    {error && <p role="alert" class="error">{error}</p>}
    {res && <>
      <p role="status" class={res.ok ? "ok" : "error"}>{res.ok ? tx.allVerified : tx.notAllVerified}</p>
      <ul>{res.rounds.map((r) => <li data-verdict={DealVerdict[r.verdict]}>
        {tx.round} {num(r.roundNo)}: <strong>{verdict(r.verdict)}</strong>
        {r.commitment.length > 0 && <> · {tx.commitment} <code dir="ltr">{hex(r.commitment).slice(0, 16)}…</code></>}
        {r.serverSeed.length > 0 && <> · {tx.serverSeed} <code dir="ltr">{hex(r.serverSeed).slice(0, 16)}…</code></>}
        {r.matchCommitment.length > 0 && <> · {tx.matchCommitment} <code dir="ltr" data-field="match-commitment">
          {hex(r.matchCommitment).slice(0, 16)}…</code></>}
        {r.matchSecret.length > 0 && <> · {tx.matchSecret} <code dir="ltr">{hex(r.matchSecret).slice(0, 16)}…</code></>}
        {r.dealVersion > 0 && <> · <code dir="ltr">hand-deal/{r.dealVersion}</code></>}
        {r.mismatch && <> · {r.mismatch}</>}
      </li>)}</ul>
    </>}
  </section>;
}
