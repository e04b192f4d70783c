// Play now (docs/decisions/0028-matchmaking.md): ask for a table (FindMatch), wait showing how long and
// when bots complete it, cancel; once the ticket is seated, the seat token FindMatch gave is the seat's and
// the page goes to the room. Calls go to the pool's owner (owners.atPool follows ROOM_MOVED). The ticket
// is kept in sessionStorage, so a reload goes on waiting.
import { useEffect, useState } from "preact/hooks";
import { owners, refusal } from "../api";
import { ErrorCode, RuleErrorSchema } from "../gen/hand/v1/errors_pb";
import { TicketStatus, type Ticket } from "../gen/hand/v1/room_service_pb";
import { ConnectError } from "@connectrpc/connect";
import { t } from "../i18n";
import { playerId, saveSeat } from "../session";

interface Waiting { key: string; ticketId: string; token: string; name: string; }
const KEY = "hand.ticket";
const POLL_MS = 700;

function kept(): Waiting | null {
  const raw = sessionStorage.getItem(KEY);
  return raw ? (JSON.parse(raw) as Waiting) : null;
}
function keep(w: Waiting | null): void {
  if (w) sessionStorage.setItem(KEY, JSON.stringify(w)); else sessionStorage.removeItem(KEY);
}
function gone(err: unknown): boolean {
  return ConnectError.from(err).findDetails(RuleErrorSchema)[0]?.code === ErrorCode.TICKET_NOT_FOUND;
}

export function PlayNow({ name, preset, seats, onPlay, go }:
  { name: string; preset: string; seats: number; onPlay: () => void; go: (path: string) => void }) {
  const tx = t();
  const [waiting, setWaiting] = useState<Waiting | null>(kept());
  const [ticket, setTicket] = useState<Ticket | null>(null);
  const [error, setError] = useState("");
  const set = (w: Waiting | null) => { keep(w); setWaiting(w); if (!w) setTicket(null); };

  useEffect(() => {
    if (!waiting) return;
    let live = true;
    const poll = async () => {
      while (live) {
        try {
          const r = await owners.atPool(waiting.key, (c, headers) =>
            c.getTicket({ ticketId: waiting.ticketId, seatToken: waiting.token }, { headers }));
          const tk = r.ticket!;
          if (!live) return;
          setTicket(tk);
          if (tk.status === TicketStatus.SEATED) {
            saveSeat({ roomId: tk.roomId, token: waiting.token, seat: tk.seat ?? 0, name: waiting.name });
            set(null);
            go(`/room/${tk.roomId}`);
            return;
          }
          if (tk.status === TicketStatus.CANCELLED) { set(null); return; }
        } catch (err) {
          if (gone(err)) { set(null); setError(refusal(err)); return; } // else: the pool moving, retried
        }
        await new Promise((r) => setTimeout(r, POLL_MS));
      }
    };
    poll();
    return () => { live = false; };
  }, [waiting?.ticketId]);

  const play = async () => {
    onPlay();
    setError("");
    const key = `mm:${preset}:${seats}`;
    try {
      const r = await owners.atPool(key, (c, headers) =>
        c.findMatch({ preset, seatCount: seats, playerName: name, playerId: playerId() }, { headers }));
      setTicket(r.ticket!);
      set({ key, ticketId: r.ticket!.ticketId, token: r.seatToken, name });
    } catch (err) { setError(refusal(err)); }
  };
  const cancel = async () => {
    if (!waiting) return;
    try {
      await owners.atPool(waiting.key, (c, headers) =>
        c.cancelTicket({ ticketId: waiting.ticketId, seatToken: waiting.token }, { headers }));
      set(null);
    } catch (err) { if (gone(err)) set(null); else setError(refusal(err)); }
  };

  return <section class="panel play-now" aria-label={tx.playNow}>
    <h2>{tx.playNow}</h2>
    {error && <p role="alert" class="error">{error}</p>}
    {waiting ? <div role="status" class="waiting-ticket">
      <p>{tx.lookingForTable}</p>
      {ticket && <p data-testid="ticket-wait">{tx.waitedFor(Math.floor(Number(ticket.waitedMs) / 1000))}
        {Number(ticket.botsInMs) > 0 ? ` · ${tx.botsIn(Math.ceil(Number(ticket.botsInMs) / 1000))}` : ""}</p>}
      <button type="button" onClick={cancel}>{tx.cancel}</button>
    </div> : <>
      <p>{tx.playNowHint}</p>
      <button type="button" class="primary" onClick={play}>{tx.playNow}</button>
    </>}
  </section>;
}
