// The table's sounds, made in code with Web Audio (no asset files): short tones for the player's turn,
// the timer's last seconds and a round's end. A mute kept in localStorage
// ("hand.mute"); what was played is noted in window.__handSounds (the browser tests read it).
export type Sound = "turn" | "warn" | "end";

const TONES: Record<Sound, [number, number][]> = { // [frequency Hz, duration ms] in sequence
  turn: [[660, 90], [880, 120]], warn: [[988, 80], [988, 80]], end: [[523, 120], [659, 120], [784, 200]],
};
let ctx: AudioContext | undefined;
const listeners = new Set<() => void>();
const played: Sound[] = ((globalThis as { __handSounds?: Sound[] }).__handSounds = []);

export function muted(): boolean { return localStorage.getItem("hand.mute") === "1"; }
export function setMuted(on: boolean): void {
  localStorage.setItem("hand.mute", on ? "1" : "0");
  listeners.forEach((f) => f());
}
/** Called when the mute changes (the header's button). */
export function onMuteChange(f: () => void): () => void { listeners.add(f); return () => listeners.delete(f); }

export function play(kind: Sound): void {
  if (muted()) return;
  played.push(kind);
  try {
    ctx ??= new AudioContext();
    if (ctx.state === "suspended") void ctx.resume().catch(() => {}); // before a first gesture the browser may keep it silent
    let at = ctx.currentTime;
    for (const [hz, ms] of TONES[kind]) {
      const osc = ctx.createOscillator(), gain = ctx.createGain();
      osc.frequency.value = hz;
      osc.type = "sine";
      gain.gain.setValueAtTime(0.0001, at);
      gain.gain.exponentialRampToValueAtTime(0.15, at + 0.01);
      gain.gain.exponentialRampToValueAtTime(0.0001, at + ms / 1000);
      osc.connect(gain).connect(ctx.destination);
      osc.start(at);
      osc.stop(at + ms / 1000 + 0.02);
      at += ms / 1000 + 0.03;
    }
  } catch { /* no audio on this device */ }
}
