// Quick chat at the table: a chat button in the status line (a 44 px touch target that never covers
// the hand), the phrase list in the page's language opening in the page's flow, a bubble at the
// sender's seat for a few seconds, and a mute toggle per player (chat.ts keeps it per room).
import { useEffect, useState } from "preact/hooks";
import { seatName } from "../names";
import { refusal } from "../api";
import { BUBBLE_MS, PHRASES, mutedIn, onHeard, phraseText, sendPhrase, senderKey, setMuted, type Heard } from "../chat";
import type { QuickPhrase } from "../gen/hand/v1/chat_pb";
import { SeatKind, type RoomInfo } from "../gen/hand/v1/room_pb";
import { t } from "../i18n";

/** The latest phrase a sender said, for BUBBLE_MS. */
function useBubble(roomId: string, key: (h: Heard) => boolean): Heard | null {
  const [said, setSaid] = useState<Heard | null>(null);
  useEffect(() => onHeard((h) => { if (h.roomId === roomId && key(h)) setSaid(h); }), [roomId]);
  useEffect(() => {
    if (!said) return;
    const id = setTimeout(() => setSaid(null), BUBBLE_MS);
    return () => clearTimeout(id);
  }, [said]);
  return said;
}

/** A seat's bubble (inside its place at the table). */
export function Bubble({ roomId, seat, name }: { roomId: string; seat?: number; name: string }) {
  const said = useBubble(roomId, (h) => seat !== undefined && h.seat === seat);
  if (!said) return null;
  return <span class="bubble" aria-label={t().chatSays(name)}>{phraseText(said.phrase)}</span>;
}

export function QuickChat({ roomId, token, room, mySeat }: { roomId: string; token: string; room: RoomInfo; mySeat?: number }) {
  const tx = t();
  const [open, setOpen] = useState(false);
  const [error, setError] = useState("");
  const [muted, setMutedState] = useState(() => mutedIn(roomId));
  const [spectators, setSpectators] = useState<string[]>([]);
  useEffect(() => onHeard((h) => {
    if (h.roomId === roomId && h.seat === undefined) setSpectators((s) => (s.includes(h.key) ? s : [...s, h.key]));
  }), [roomId]);
  // my own phrases, and spectators' (who have no place at the table), show beside the button
  const said = useBubble(roomId, (h) => h.seat === undefined || h.seat === mySeat);
  const name = (key: string) => {
    const seat = key.startsWith("seat:") ? Number(key.slice(5)) : undefined;
    return seat !== undefined ? seatName(room, seat) : `${tx.spectator} ${key.slice(-4)}`;
  };
  const send = async (p: QuickPhrase) => {
    setError("");
    try { await sendPhrase(roomId, token, p); setOpen(false); } catch (e) { setError(refusal(e)); }
  };
  const toggleMute = (key: string) => setMutedState(setMuted(roomId, key, !muted.has(key)));
  const others = [
    ...room.seats.filter((s) => s.kind === SeatKind.HUMAN && s.seat !== mySeat).map((s) => senderKey(s.seat, "")),
    ...spectators,
  ];
  return <div class="quick-chat">
    <div class="row">
      <button type="button" class="chat-toggle" aria-expanded={open} aria-label={tx.chat} onClick={() => setOpen(!open)}>
        {/* a speech bubble drawn here: the emoji needs a font a phone or a headless browser may lack */}
        <svg viewBox="0 0 24 24" width="22" height="22" aria-hidden="true"><path fill="currentColor"
          d="M4 4h16a2 2 0 0 1 2 2v9a2 2 0 0 1-2 2h-9l-5 4v-4H4a2 2 0 0 1-2-2V6a2 2 0 0 1 2-2z" /></svg></button>
      {said && <span class="bubble mine" aria-label={tx.chatSays(said.seat === undefined ? name(said.key) : name(senderKey(mySeat, "")))}>
        {phraseText(said.phrase)}</span>}
    </div>
    {open && <section class="chat-panel panel" aria-label={tx.chat}>
      {error && <p role="alert" class="error">{error}</p>}
      <div class="phrases" role="group" aria-label={tx.chatPhrases}>
        {PHRASES.map((p) => <button type="button" onClick={() => send(p)}>{phraseText(p)}</button>)}
      </div>
      {others.length > 0 && <div class="mutes">{others.map((key) =>
        <button type="button" aria-pressed={muted.has(key)} onClick={() => toggleMute(key)}>
          {muted.has(key) ? `🔇 ${tx.unmute(name(key))}` : tx.mute(name(key))}</button>)}</div>}
    </section>}
  </div>;
}
