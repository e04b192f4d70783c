// The replay viewer (issue 26, item 7) and the leaderboard's order (item 12): a short finished match
// (two seats, one round; the player only draws and discards, so the expert bot wins), then its replay:
// it opens at the first deal, start / end / round jumps / autoplay move the step, the score so far and,
// the match being over, every seat's hand are shown, and an early step shows the table, not nothing.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { SEED_QUICK_EXPERT, at, awaitTurn, browser, page, playTurn, sheet, startMatch } from "./helpers.mjs";

let b, roomId;
before(async () => { b = await browser(); });
after(async () => { await b?.close(); });

/** The status line's step counter: [step, last step]. */
async function counter(p) {
  const m = /Step\s+(\d+)\s*\/\s*(\d+)/.exec(await p.getByRole("status").innerText());
  assert.ok(m, await p.getByRole("status").innerText());
  return [Number(m[1]), Number(m[2])];
}

async function stepIs(p, want) {
  await p.waitForFunction((w) => new RegExp(`Step\\s+${w}\\s*/`).test(document.querySelector('[role="status"]')?.textContent ?? ""), want);
}

test("the replay opens at the first deal; start, end and round jumps move the step; scores and every hand shown", async () => {
  const p = await page(b);
  roomId = await startMatch(p, { name: "Rewind", seats: "2", level: "Expert", seed: SEED_QUICK_EXPERT }); // a short round
  while (await awaitTurn(p)) await playTurn(p);
  await sheet(p).getByRole("heading", { name: /Match over/ }).waitFor();
  await sheet(p).getByRole("button", { name: "Replay" }).click();
  const status = p.getByRole("status");
  await status.getByText(/Round 1 is dealt/).waitFor(); // not the last step: the first deal
  const [dealt, last] = await counter(p);
  assert.ok(dealt > 0 && dealt < last, `${dealt} / ${last}`);
  await p.getByRole("heading", { name: /Replay — Round 1/ }).waitFor();
  // the match is over: every seat's hand, each a group of cards named by its player
  const hands = [p.getByRole("region", { name: "Rewind" }), p.getByRole("region", { name: "Bot 1" })];
  for (const h of hands) assert.ok((await h.getByRole("img").count()) >= 14, await h.innerText());
  const score = p.getByRole("region", { name: "Score so far" });
  await score.getByRole("cell", { name: /Rewind/ }).waitFor();
  await score.getByRole("cell", { name: /Bot 1/ }).waitFor();
  // to the end: the match is over, the totals are the match's (the bot went out; Rewind never laid a card)
  await p.getByRole("button", { name: "To the end" }).click();
  await status.getByText(/The match is over/).waitFor();
  assert.deepEqual(await counter(p), [last, last]);
  const totals = await score.locator("tbody tr").evaluateAll((rows) => rows.map((r) => r.lastElementChild.textContent));
  assert.equal(totals.length, 2);
  assert.ok(totals.some((t) => Number(t) > 0), JSON.stringify(totals));
  for (const name of ["Next round", "To the end", "Step forward"]) assert.ok(await p.getByRole("button", { name }).isDisabled());
  // one step back: the round's result, each seat's score of the round beside its total
  await p.getByRole("button", { name: "Step back" }).click();
  await stepIs(p, last - 1);
  // the previous round's start is its deal; before the first deal, the start
  await p.getByRole("button", { name: "Previous round" }).click();
  await stepIs(p, dealt);
  await status.getByText(/Round 1 is dealt/).waitFor();
  await p.getByRole("button", { name: "Previous round" }).click();
  await stepIs(p, 0);
  // an early step is not blank: the table as of that step (its seats, the score so far, nothing dealt)
  await status.getByText(/The room is open/).waitFor();
  assert.equal(await score.locator("tbody tr").count(), 2);
  await p.getByText("Not dealt yet").waitFor();
  await p.getByRole("button", { name: "Step forward" }).click();
  await stepIs(p, 1);
  assert.equal(await score.locator("tbody tr").count(), 2);
  // the next round from before the deal is the deal; after the last deal, the end
  await p.getByRole("button", { name: "Next round" }).click();
  await stepIs(p, dealt);
  await p.getByRole("button", { name: "Next round" }).click();
  await stepIs(p, last);
  await p.getByRole("button", { name: "To the start" }).click();
  await stepIs(p, 0);
  assert.ok(await p.getByRole("button", { name: "To the start" }).isDisabled());
  await p.context().close();
});

test("autoplay steps through the replay by itself until paused; the viewer speaks Arabic too", async () => {
  assert.ok(roomId, "the first test's match");
  const p = await page(b);
  await p.goto(at(`#/replay/${roomId}`));
  await p.getByRole("status").getByText(/Round 1 is dealt/).waitFor();
  const [from] = await counter(p);
  await p.getByRole("button", { name: "Play" }).click();
  await stepIs(p, from + 2);
  await p.getByRole("button", { name: "Pause" }).click();
  await p.getByRole("button", { name: "Play" }).waitFor();
  const [paused] = await counter(p);
  await p.waitForTimeout(2000); // paused: it stays (autoplay moves a step every 0.7 s)
  assert.deepEqual((await counter(p))[0], paused);
  await p.context().close();

  const ar = await page(b, { lang: "ar" });
  await ar.goto(at(`#/replay/${roomId}`));
  await ar.getByRole("status").getByText(/وُزّعت الجولة/).waitFor();
  for (const name of ["إلى البداية", "الجولة السابقة", "تشغيل", "الجولة التالية", "إلى النهاية"]) {
    await ar.getByRole("button", { name, exact: true }).waitFor();
  }
  await ar.getByRole("region", { name: "النقاط حتى الآن" }).waitFor();
  await ar.context().close();
});

test("the leaderboard ranks a player who has played above one with no finished match", async () => {
  assert.ok(roomId, "the first test's match");
  // a newcomer sits at a table of their own (the ledger knows them: 0 matches, the starting rating)
  const n = await page(b);
  await n.goto(at());
  await n.getByLabel("Your name").fill("Newcomer");
  await n.getByRole("button", { name: "Create", exact: true }).click();
  await n.getByRole("button", { name: /Fill with bots/ }).waitFor();
  await n.getByRole("link", { name: "Leaderboard" }).click();
  const board = n.locator("main table tbody");
  for (let i = 0; !(await board.getByRole("cell", { name: "Newcomer" }).count()); i++) {
    assert.ok(i < 60, "the ledger never listed the newcomer");
    await n.waitForTimeout(500);
    await n.reload();
    await n.getByRole("columnheader", { name: "#" }).waitFor();
  }
  await board.getByRole("cell", { name: "Rewind" }).waitFor();
  const rows = await board.locator("tr").evaluateAll((trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent)));
  const names = rows.map((r) => r[1]), matches = rows.map((r) => Number(r[3]));
  assert.ok(names.indexOf("Rewind") < names.indexOf("Newcomer"), JSON.stringify(rows));
  // every player with a finished match above every one without, ranks 1, 2, … in order
  assert.deepEqual(matches, [...matches].sort((x, y) => Number(y > 0) - Number(x > 0)), JSON.stringify(rows));
  assert.deepEqual(rows.map((r) => Number(r[0])), rows.map((_, i) => i + 1));
  await n.context().close();
});
