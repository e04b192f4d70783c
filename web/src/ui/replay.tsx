import { useEffect, useState } from "preact/hooks";
import { ledger, refusal } from "../api";
import { DealVerdict, type GetReplayResponse, type VerifyDealResponse } from "../gen/hand/v1/ledger_service_pb";
import { num, t } from "../i18n";
import { seatName } from "../names";
import { eventLine } from "../events";
import { loadSeat } from "../session";
import { Card } from "./card";

/** LedgerService.GetReplay: the position after any archived event, step by step. */
export function Replay({ roomId }: { roomId: string }) {
  const tx = t();
  // the ledger shows any seat's view once the match is over (it holds no seat tokens): ask for ours,
  // and fall back to the public view while the match runs
  const mine = loadSeat(roomId)?.seat;
  const [asSeat, setAsSeat] = useState(mine !== undefined);
  const [step, setStep] = useState<bigint | undefined>(undefined);
  const [data, setData] = useState<GetReplayResponse | undefined>();
  const [error, setError] = useState("");
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    ledger.getReplay({ roomId, step, fromSeq: step ?? 0n, seat: asSeat ? mine : undefined })
      .then((r) => {
        if (!live) return;
        setData(r); setError("");
        // at the latest step, follow the archive until the match is over (the ledger trails the room)
        if (step === undefined && !r.complete) setTimeout(() => live && setTick((n) => n + 1), 1000);
      }, (e) => live && (asSeat ? setAsSeat(false) : setError(refusal(e))));
    return () => { live = false; };
  }, [roomId, step, asSeat, tick]);
  const at = data?.step ?? 0n, count = data?.eventCount ?? 0n;
  const v = data?.view;
  const last = data?.events[data.events.length - 1];
  const name = (s?: number) => seatName(data?.room, s);
  return <main class="replay panel">
    <h2>{tx.replay}</h2>
    {error && <p role="alert" class="error">{error}</p>}
    <p role="status">{tx.step} <bdi dir="ltr">{num(at)} / {num(count > 0n ? count - 1n : 0n)}</bdi> · {last ? eventLine(last, data?.room) : ""}</p>
    <div class="row">
      <button type="button" disabled={at <= 0n} onClick={() => setStep(at - 1n)}>{tx.stepBack}</button>
      <button type="button" disabled={at + 1n >= count} onClick={() => setStep(at + 1n)}>{tx.stepForward}</button>
    </div>
    {v && <>
      <h3>{tx.pile}</h3>
      <div class="cards">{v.pile.slice(-6).map((c) => <Card id={c} small />)}</div>
      <h3>{tx.table}</h3>
      {v.melds.map((m) => <div class="meld"><span class="owner">{tx.meldBy(name(m.owner))}</span>{m.cards.map((c) => <Card id={c} small />)}</div>)}
      {v.hand.length > 0 && <><h3>{tx.yourHand}</h3><div class="cards">{v.hand.map((c) => <Card id={c} small />)}</div></>}
    </>}
    <VerifyDeal roomId={roomId} />
  </main>;
}

const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");

/** LedgerService.VerifyDeal (decision 0022): each round's commitment, revealed seed and verdict,
 * checked from the room's public record. */
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
        {r.mismatch && <> · {r.mismatch}</>}
      </li>)}</ul>
    </>}
  </section>;
}
