// Quick chat (docs/clients.md, "Quick chat"; docs/decisions/0025-quick-chat.md): the phrase set's
// texts in the page's language, sending a phrase to the room's owner, the chat events heard on the
// room's stream, and the per-player mute — kept in this browser only, per room (the server does not
// need to know: a muted phrase is still delivered, just not shown).
import { REDIRECTED, movedTo } from "./owner";
import { owners } from "./api";
import type { Update } from "./events";
import { QuickPhrase } from "./gen/hand/v1/chat_pb";
import { t } from "./i18n";

/** Phrase set version 1: the twelve phrases (texts in i18n.ts), then five emotes. */
export const PHRASES: QuickPhrase[] = Array.from({ length: 17 }, (_, i) => (i + 1) as QuickPhrase);
const EMOTES: Partial<Record<QuickPhrase, string>> = {
  [QuickPhrase.EMOTE_THUMBS_UP]: "👍", [QuickPhrase.EMOTE_LAUGH]: "😂", [QuickPhrase.EMOTE_SURPRISED]: "😮",
  [QuickPhrase.EMOTE_SAD]: "😢", [QuickPhrase.EMOTE_THINKING]: "🤔",
};
/** How long a bubble stays, and how old a chat event may be and still be shown (history replayed
 * on a first visit is not). */
export const BUBBLE_MS = 4000;
const FRESH_MS = 15_000;

/** A phrase as the page shows it; a number from a newer set than this page's: a neutral bubble. */
export function phraseText(p: QuickPhrase): string {
  return EMOTES[p] ?? t().phrases[p - 1] ?? "💬";
}

/** Who sent a phrase: `seat:N` for a seat, the spectator's per-room key for a spectator. */
export function senderKey(seat: number | undefined, spectator: string): string {
  return seat !== undefined ? `seat:${seat}` : spectator;
}

const muteKey = (roomId: string) => `hand.chat.mute.${roomId}`;
export function mutedIn(roomId: string): Set<string> {
  try { return new Set(JSON.parse(localStorage.getItem(muteKey(roomId)) ?? "[]") as string[]); } catch { return new Set(); }
}
export function setMuted(roomId: string, key: string, on: boolean): Set<string> {
  const all = mutedIn(roomId);
  if (on) all.add(key); else all.delete(key);
  localStorage.setItem(muteKey(roomId), JSON.stringify([...all]));
  return all;
}

export interface Heard { roomId: string; key: string; seat?: number; spectator: string; phrase: QuickPhrase; id: number }
const listeners = new Set<(h: Heard) => void>();
let serial = 0;

/** The room stream's chat events (session.ts `follow` → table.tsx); muted senders and stale history
 * are dropped here. */
export function heard(roomId: string, u: Update): void {
  if (!u.chat || (u.at !== undefined && Date.now() - u.at > FRESH_MS)) return;
  const key = senderKey(u.chat.seat, u.chat.spectator);
  if (mutedIn(roomId).has(key)) return;
  const h = { roomId, key, seat: u.chat.seat, spectator: u.chat.spectator, phrase: u.chat.phrase, id: ++serial };
  for (const fn of listeners) fn(h);
}
export function onHeard(fn: (h: Heard) => void): () => void {
  listeners.add(fn);
  return () => { listeners.delete(fn); };
}

/** Send a phrase at the room's owner (a seat with its token; a spectator signed in, no token);
 * a ROOM_MOVED is followed once. */
export async function sendPhrase(roomId: string, seatToken: string, phrase: QuickPhrase) {
  const req = { roomId, seatToken, phrase };
  try {
    return await owners.at(owners.ownerOf(roomId) || location.origin).chat(req);
  } catch (err) {
    const to = movedTo(err);
    if (to === null) throw err;
    return await owners.at(to || location.origin).chat(req, { headers: REDIRECTED });
  }
}
