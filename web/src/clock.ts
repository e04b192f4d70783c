// The server's clock as this page estimates it, for the turn timer (docs/clients.md, "The turn's
// deadline and clock skew"). Every RoomInfo carries server_time (when the server wrote it) and, while a
// turn runs, turn_deadline (when the server plays the automatic turn). The offset server − device is
// sampled as server_time − the moment the message arrived; the transit only makes a sample smaller, so
// the largest of the recent samples is the best estimate. A countdown is turn_deadline − (now + offset):
// the same before and after a reload, whatever the device's clock says.
import type { Timestamp } from "@bufbuild/protobuf/wkt";

const KEEP = 8; // recent samples kept (a device clock that is reset moves the estimate within 8 messages)
const samples: number[] = [];

export function millis(ts: Timestamp): number {
  return Number(ts.seconds) * 1000 + Math.floor(ts.nanos / 1e6);
}

/** A message stamped ``serverTime`` arrived at ``receivedAt`` (the device's clock). */
export function observe(serverTime: Timestamp | undefined, receivedAt = Date.now()): void {
  if (!serverTime) return;
  samples.push(millis(serverTime) - receivedAt);
  if (samples.length > KEEP) samples.shift();
}

/** Server clock − device clock, in ms (0 before the first sample). */
export function offset(): number {
  return samples.length ? Math.max(...samples) : 0;
}

/** Milliseconds until ``deadline`` on the server's clock; undefined without a deadline. */
export function msUntil(deadline: Timestamp | undefined, now = Date.now()): number | undefined {
  return deadline ? millis(deadline) - (now + offset()) : undefined;
}

(globalThis as { __handClock?: unknown }).__handClock = { offset, samples };
