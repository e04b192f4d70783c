import { useEffect, useState } from "preact/hooks";
import type { Timestamp } from "@bufbuild/protobuf/wkt";
import { msUntil } from "../clock";
import { t } from "../i18n";
import { play } from "../sound";
import { Num } from "./num";

/** Seconds left at which the countdown turns urgent (and, on the player's own turn, warns). */
export const WARN_S = 10;

/** The running turn's countdown to the server's deadline (RoomInfo.turn_deadline), on the server's
 * clock as estimated from server_time (clock.ts), so a reload shows the same number. Inside the table's status line (a polite live
 * region): on the player's own turn, the last WARN_S seconds say that the timer will play it. */
export function TurnTimer({ deadline, mine }: { deadline?: Timestamp; mine: boolean }) {
  const tx = t();
  const [, tick] = useState(0);
  useEffect(() => { const id = setInterval(() => tick((n) => n + 1), 250); return () => clearInterval(id); }, []);
  const ms = msUntil(deadline);
  const warn = mine && ms !== undefined && ms > 0 && Math.ceil(ms / 1000) <= WARN_S;
  useEffect(() => { if (warn) play("warn"); }, [warn]); // a sound as the last seconds begin
  if (ms === undefined) return null;
  const left = Math.max(0, Math.ceil(ms / 1000));
  const urgent = left <= WARN_S;
  return <>
    <span class={`timer${urgent ? " urgent" : ""}`} aria-label="timer" data-left={left} data-ms={Math.round(ms)}>
      {" · "}<Num v={left} /> {tx.secondsShort}
    </span>
    {mine && urgent && <span class="warn"> · {tx.hurry(left)}</span>}
  </>;
}
