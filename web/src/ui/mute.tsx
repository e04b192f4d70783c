import { useEffect, useState } from "preact/hooks";
import { t } from "../i18n";
import { muted, onMuteChange, setMuted } from "../sound";

/** The header's sound switch: pressed = muted (kept across reloads). */
export function MuteButton() {
  const tx = t();
  const [on, setOn] = useState(muted());
  useEffect(() => onMuteChange(() => setOn(muted())), []);
  return <button type="button" class="mute" aria-pressed={on} aria-label={tx.muteSounds} title={tx.muteSounds}
    onClick={() => setMuted(!on)}>{on ? "🔇" : "🔊"}</button>;
}
