import { useEffect, useState } from "preact/hooks";
import { ledger, refusal } from "../api";
import type { GetReplayResponse } from "../gen/hand/v1/ledger_service_pb";
import { t } from "../i18n";
import { loadSeat } from "../session";
import { Card } from "./card";

/** LedgerService.GetReplay: the position after any archived event, step by step. */
export function Replay({ roomId }: { roomId: string }) {
  const tx = t();
  const token = loadSeat(roomId)?.token ?? "";
  const [step, setStep] = useState<bigint | undefined>(undefined);
  const [data, setData] = useState<GetReplayResponse | undefined>();
  const [error, setError] = useState("");
  useEffect(() => {
    ledger.getReplay({ roomId, seatToken: token, step, fromSeq: step ?? 0n }).then((r) => { setData(r); setError(""); },
      (e) => setError(refusal(e)));
  }, [roomId, step]);
  const at = data?.step ?? 0n, count = data?.eventCount ?? 0n;
  const v = data?.view;
  const name = (s?: number) => s === undefined ? "" : data?.room?.seats[s]?.name || `#${s + 1}`;
  return <main class="replay panel">
    <h2>{tx.replay}</h2>
    {error && <p role="alert" class="error">{error}</p>}
    <p role="status">{tx.step} {String(at)} / {String(count > 0n ? count - 1n : 0n)} · {data?.events[data.events.length - 1]?.event.case ?? ""}</p>
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
  </main>;
}
