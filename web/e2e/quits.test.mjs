// Quitters on the score sheet (issue 27 item 4, decision 0027): a player who stalls in a two-seat
// match (5 s turns: the timer plays two, then a bot plays the seat to the end) is away when the match
// ends; the final sheet flags that seat ("left mid-match") and says what it means, in English and in
// Arabic — the seats the server's GetMatchResult names (human_left, left_seats), and no other.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { SEED_QUICK_EXPERT, awaitTurn, browser, call, page, playTurn, sheet, startMatch } from "./helpers.mjs";

let b;
before(async () => { b = await browser(); });
after(async () => { await b?.close(); });

test("the score sheet flags the seat of a player who left mid-match, as GetMatchResult does", async () => {
  const p = await page(b);
  // the quick deal: the bot goes out on turn 5, just after the timer played the seat's second turn
  // (turns 2 and 4), so the seat is away when the match ends
  const roomId = await startMatch(p, { name: "Quitter", seats: "2", turn: "5", level: "Expert", seed: SEED_QUICK_EXPERT });
  const over = sheet(p).getByRole("heading", { name: /Match over/ });
  await over.waitFor();
  const note = sheet(p).getByRole("note");
  await note.getByText("Quitter left mid-match: a bot played the seat, and the result counts for them without a gain.").waitFor();
  const flagged = await sheet(p).locator("tbody tr").evaluateAll((rows) =>
    rows.filter((r) => r.querySelector(".badge.quit")).map((r) => r.children[0].textContent));
  assert.deepEqual(flagged, ["Quitter left mid-match"]);
  const { result } = await call("LedgerService", "GetMatchResult", { roomId });
  assert.equal(result.humanLeft, true);
  assert.deepEqual(result.leftSeats, [0]); // seat 0: Quitter's

  // Arabic: the same flag after a reload (the final sheet comes back from the snapshot and the ledger)
  await p.evaluate(() => localStorage.setItem("hand.lang", "ar"));
  await p.reload();
  await sheet(p).getByRole("note").getByText("Quitter غادر أثناء المباراة: لعب آلي مكانه، وتُحسب النتيجة عليه بلا مكسب.").waitFor();
  await sheet(p).locator(".badge.quit").getByText("غادر أثناء المباراة").waitFor();
  await p.context().close();
});

test("a match nobody left has no flag", async () => {
  const p = await page(b);
  const roomId = await startMatch(p, { name: "Stayer", seats: "2", level: "Expert", seed: SEED_QUICK_EXPERT }); // a short round
  // the player stays and plays every turn by clicks
  while (await awaitTurn(p)) await playTurn(p);
  await sheet(p).getByRole("heading", { name: /Match over/ }).waitFor();
  await sheet(p).getByText("1 round played").waitFor(); // the ledger's answers are in
  assert.equal(await sheet(p).getByRole("note").count(), 0);
  assert.equal(await sheet(p).locator(".badge.quit").count(), 0);
  const { result } = await call("LedgerService", "GetMatchResult", { roomId });
  assert.ok(!result.humanLeft, JSON.stringify(result));
  await p.context().close();
});
