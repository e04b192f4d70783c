// The table's facts come from the server (decision 0023): the turn timer counts to the server's
// deadline (RoomInfo.turn_deadline, corrected for the device's clock with server_time), so a reload
// shows the same countdown; a finished match shows its result, score sheet and buttons after a reload,
// the sheet read from the ledger up to the last event the page saw (GetScoreSheet.min_seq).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { SEED_STALL_4, awaitTurn, browser, call, page, sheet, startMatch } from "./helpers.mjs";

let b;
before(async () => { b = await browser(); });
after(async () => { await b?.close(); });

/** Seconds left of the running turn as the server says it (GetRoom: turn_deadline − server_time). */
async function serverLeft(roomId) {
  const { room } = await call("RoomService", "GetRoom", { roomId });
  assert.ok(room.turnDeadline, JSON.stringify(room));
  return (Date.parse(room.turnDeadline) - Date.parse(room.serverTime)) / 1000;
}
/** Seconds left as the page counts them (its last render, at most 250 ms old; the text is rounded up). */
const pageLeft = async (p) => Number(await p.getByLabel("timer").getAttribute("data-ms")) / 1000;
/** The page's skew samples (clock.ts), for a failure's message. */
const samples = async (p) => JSON.stringify(await p.evaluate(() => window.__handClock.samples));

test("the turn timer is the server's deadline: the same after a reload, on a device whose clock is an hour off", async () => {
  const p = await page(b);
  await p.clock.install({ time: Date.now() + 3_600_000 }); // the device's clock is an hour ahead
  const roomId = await startMatch(p, { name: "Clock", turn: "90" });
  assert.ok(await awaitTurn(p));
  const first = await pageLeft(p);
  const was = await serverLeft(roomId);
  assert.ok(Math.abs(first - was) <= 1, `the page shows ${first} s, the server ${was} s; ${await samples(p)}`);
  // time passes on the player's turn; the countdown follows it
  await p.waitForFunction((was) => Number(document.querySelector(".timer")?.getAttribute("data-ms")) / 1000 <= was - 3, first);
  await p.reload();
  assert.ok(await awaitTurn(p));
  await p.getByLabel("timer").waitFor();
  const [shown, server] = [await pageLeft(p), await serverLeft(roomId)];
  assert.ok(Math.abs(shown - server) <= 1,
    `after the reload the page shows ${shown} s, the server ${server} s; ${await samples(p)}`);
  assert.ok(shown <= first - 3, `${shown} after ${first}: the reload did not restart the turn`);
  await p.context().close();
});

test("a finished match keeps its result after a reload, the sheet read from the ledger up to its end", async () => {
  const p = await page(b);
  // the player stalls: the timer plays two turns, then a bot plays the seat to the end of the round
  // (three rounds: tests/integration/test_ledger_min_seq.py; here the page's path, kept short: a deal
  // another seat ends on turn 9, after the timer's two, helpers.mjs)
  const roomId = await startMatch(p, { name: "Stay", rounds: "1", turn: "5", seed: SEED_STALL_4 });
  const over = sheet(p).getByRole("heading", { name: /Match over/ });
  await over.waitFor();
  await p.reload();
  await over.waitFor();
  await sheet(p).getByText(/^Winners?: /).waitFor();
  await sheet(p).getByText("1 round played").waitFor(); // GetScoreSheet(min_seq): the ledger caught up
  const asked = p.calls.filter(([path]) => path.endsWith("/GetScoreSheet"));
  assert.ok(asked.length >= 1, JSON.stringify(p.calls));
  await sheet(p).getByRole("button", { name: "Replay" }).waitFor();
  await sheet(p).getByRole("button", { name: "Leaderboard" }).waitFor();
  const { room } = await call("RoomService", "GetRoom", { roomId });
  assert.equal(room.status, "ROOM_STATUS_FINISHED");
  assert.equal(room.turnDeadline, undefined); // no turn runs after the match
  await p.context().close();
});
