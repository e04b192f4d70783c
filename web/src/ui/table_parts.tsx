import { useEffect, useRef, useState } from "preact/hooks";
import { num, t } from "../i18n";
import { Card } from "./card";

/** The whole discard pile (SeatView.pile, oldest first, the top last), behind a button beside the top
 * card: the apps players know show more than the top discard. */
export function PileHistory({ pile }: { pile: number[] }) {
  const tx = t();
  const [open, setOpen] = useState(false);
  if (pile.length === 0) return null;
  return <>
    <button type="button" class="pile-all" aria-expanded={open} onClick={() => setOpen(!open)}>
      {tx.wholePile(num(pile.length))}</button>
    {open && <section class="pile-history panel" aria-label={tx.pileHistory}>
      {pile.map((c) => <Card id={c} small />)}
    </section>}
  </>;
}

/** The player's own place at the table, beside "Your hand (n)": name, state (playing / away / back),
 * opened; the chat bubble of its own phrases shows beside the quick-chat button. */
export function MySeat({ name, state, opened }: { name: string; state: string; opened: boolean }) {
  const tx = t();
  return <div class="my-seat" role="region" aria-label={tx.yourSeat}>
    <strong><bdi>{name}</bdi></strong> <span class="badge">{tx.you}</span>
    <span class="badge">{state}</span>{opened && <span class="badge open">{tx.opened}</span>}
  </div>;
}

/** The table's whole log (the lines of this page's session, newest last), scrolled to its end as lines
 * come unless the reader has scrolled up to read. */
export function Log({ lines }: { lines: (() => string)[] }) {
  const ref = useRef<HTMLOListElement>(null);
  const pinned = useRef(true);
  useEffect(() => { const el = ref.current; if (el && pinned.current) el.scrollTop = el.scrollHeight; }, [lines]);
  const onScroll = () => { const el = ref.current; if (el) pinned.current = el.scrollHeight - el.scrollTop - el.clientHeight < 8; };
  return <ol class="log" aria-label="log" ref={ref} onScroll={onScroll} tabIndex={0}>{lines.map((l) => <li>{l()}</li>)}</ol>;
}
