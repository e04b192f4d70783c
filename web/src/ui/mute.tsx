import { useEffect, useState } from "preact/hooks";
import { t } from "../i18n";
import { muted, onMuteChange, setMuted } from "../sound";

/** A speaker, with sound waves or struck through (drawn here: no emoji font is needed). */
function Speaker({ off }: { off: boolean }) {
  return <svg viewBox="0 0 24 24" width="22" height="22" aria-hidden="true" fill="none" stroke="currentColor" stroke-width="2"
    stroke-linecap="round" stroke-linejoin="round">
    <path d="M4 9h4l5-4v14l-5-4H4z" fill="currentColor" />
    {off ? <path d="M17 9l5 6M22 9l-5 6" /> : <path d="M16.5 8.5a5 5 0 0 1 0 7M19 6a8.5 8.5 0 0 1 0 12" />}
  </svg>;
}

/** The header's sound switch: pressed = muted (kept across reloads). */
export function MuteButton() {
  const tx = t();
  const [on, setOn] = useState(muted());
  useEffect(() => onMuteChange(() => setOn(muted())), []);
  return <button type="button" class="mute" aria-pressed={on} aria-label={tx.muteSounds} title={tx.muteSounds}
    onClick={() => setMuted(!on)}><Speaker off={on} /></button>;
}
