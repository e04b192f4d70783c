// The web client against the real stack (HAND_WEB_URL), in Debian's chromium.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { at, awaitTurn, editIdentity, expectedContentType, browser, handLabels, identityWhen, page, playTurn, sheet, startMatch } from "./helpers.mjs";

let b;
before(async () => { b = await browser(); });
after(async () => { await b?.close(); });

test("a human plays a whole one-round match against three expert bots by clicks only, to the score sheet", async () => {
  const p = await page(b);
  await startMatch(p, { level: "Expert" });
  let turns = 0;
  while (await awaitTurn(p)) {
    await playTurn(p);
    turns++;
  }
  await sheet(p).getByRole("heading", { name: /Match over/ }).waitFor();
  assert.ok(turns > 0);
  // the replay viewer steps back and forward through the archive
  await sheet(p).getByRole("button", { name: "Replay" }).click();
  const status = p.getByRole("status");
  await status.getByText(/Round 1 is dealt/).waitFor(); // it opens at the first deal
  await p.getByRole("button", { name: "To the end" }).click();
  await status.getByText(/The match is over/).waitFor();
  const end = await status.innerText();
  await p.getByRole("button", { name: "Step back" }).click();
  await status.getByText(/Round 1 is over/).waitFor();
  await p.getByRole("button", { name: "Step forward" }).click();
  await status.getByText(end).waitFor();
  // "verify this deal": the round was dealt provably fair and verifies from the public record (0022, 0034)
  const verify = p.getByRole("region", { name: "Verify this deal" });
  await verify.getByRole("button", { name: "Verify this deal" }).click();
  await verify.getByText("Every deal verified").waitFor();
  await verify.locator('li[data-verdict="VERIFIED"]').first().waitFor();
  // hand-deal/2 (0034): against the match commitment room_created published before any seat seed
  await verify.locator('code[data-field="match-commitment"]').first().waitFor();
  await verify.getByText("hand-deal/2").first().waitFor();
  // the leaderboard ranks accounts: the page signed in as this browser's player, so Ada is on it
  await p.getByRole("link", { name: "Leaderboard" }).click();
  await p.getByRole("columnheader", { name: "#" }).waitFor();
  await p.getByRole("cell", { name: "Ada" }).first().waitFor();
  // above it the player's own statistics, and their row is marked
  const mine = p.getByRole("region", { name: "Your statistics" });
  await mine.getByText(/^Ada · Rating -?\d+\.\d · Matches 1 · Wins [01]$/).waitFor();
  await p.locator('tr[aria-current="true"]').getByRole("cell", { name: "Ada" }).waitFor();
  assert.ok(p.calls.length > 0 && p.calls.every(([, signed]) => signed), JSON.stringify(p.calls.filter(([, s]) => !s)));
  await p.context().close();
});

test("a reload or a dropped stream mid-round resumes the seat from its token, nothing missed", async () => {
  const p = await page(b);
  await startMatch(p, { name: "Reload", rounds: "3" });
  assert.ok(await awaitTurn(p));
  await playTurn(p);
  assert.ok(await awaitTurn(p));
  // the same cards; a card's "(new)" / "(taken)" mark is the page's memory of this turn, not the hand
  const plain = async () => (await handLabels(p)).map((l) => l.replace(/ \([^)]*\)$/, "")).sort();
  const before = await plain();
  await p.reload();
  assert.ok(await awaitTurn(p));
  assert.deepEqual(await plain(), before);
  await playTurn(p); // and the seat still plays
  // a dropped stream reconnects from the last seq + 1: the bots' moves meanwhile arrive, none missed
  await p.evaluate(() => window.__hand.drop());
  // the seat's next turn, or the round's score sheet: a bot may go out meanwhile (random deal;
  // a bot went out before the seat's next turn once, 2026-12-07) — either way every event arrived
  const myTurnAgain = await awaitTurn(p);
  const stats = await p.evaluate(() => ({ reconnects: window.__hand.reconnects, gaps: window.__hand.gaps }));
  assert.equal(stats.gaps, 0);
  assert.ok(stats.reconnects >= 1, JSON.stringify(stats));
  if (myTurnAgain) await playTurn(p);
  await p.context().close();
});

test("an illegal move shows the server's refusal, in the player's language", async () => {
  for (const lang of ["en", "ar"]) {
    const p = await page(b, { lang });
    // seed 5: the player is fourth to play, so the pile has a top to take. (A one-card group can no
    // longer be sent: Lay melds waits for a valid staging, staging.test.mjs.) The take's duty is unmet,
    // so discarding another card is refused by the rules
    await startMatch(p, { name: lang, seed: "5" });
    assert.ok(await awaitTurn(p));
    await p.getByRole("button", { name: /^(Take|خذ)$/ }).click();
    const hand = p.getByRole("region", { name: /Your hand|ورقك/ });
    await hand.locator("button.card[data-mark]").waitFor();
    await hand.locator("button.card:not([data-mark])").first().click();
    await p.getByRole("button", { name: /^(Discard|ارمِ)$/ }).click();
    await p.getByRole("alert").waitFor();
    const text = await p.getByRole("alert").innerText();
    assert.ok(text.length > 3, text);
    assert.equal(/[\u0600-\u06ff]/.test(text), lang === "ar", text);
    assert.ok(p.contentTypes.has(expectedContentType), [...p.contentTypes].join(", ")); // Connect or gRPC-Web
    await p.context().close();
  }
});

test("the Arabic page renders right to left", async () => {
  const p = await page(b, { lang: "ar", width: 390, height: 844 });
  await p.goto(at());
  await p.getByRole("heading", { name: "إنشاء غرفة" }).waitFor();
  assert.equal(await p.locator("html").getAttribute("dir"), "rtl");
  assert.equal(await p.locator("html").getAttribute("lang"), "ar");
  await startMatch(p, { name: "ليلى" });
  assert.ok(await awaitTurn(p));
  await p.getByRole("button", { name: "English" }).click();
  assert.equal(await p.locator("html").getAttribute("dir"), "ltr");
  await p.context().close();
});

test("a spectator page shows no hand", async () => {
  const player = await page(b);
  const roomId = await startMatch(player, { name: "Host" });
  const p = await page(b);
  await p.goto(at(`#/room/${roomId}/watch`));
  await p.getByRole("status").getByText(/Spectating/).waitFor();
  await p.getByRole("region", { name: "seats" }).getByText("Host").waitFor();
  assert.equal(await p.getByRole("region", { name: "Your hand" }).count(), 0);
  assert.equal(await p.getByRole("region", { name: "Staging" }).count(), 0);
  assert.equal(await p.getByRole("region", { name: "seats" }).locator(".opponent").count(), 4);
  await player.context().close();
  await p.context().close();
});

test("a take can be returned where the preset allows it, and a card is discarded by dragging it to the pile", async () => {
  const p = await page(b);
  await startMatch(p, { name: "Drag", rounds: "3" });
  const draw = p.getByRole("button", { name: "Draw", exact: true });
  assert.ok(await awaitTurn(p));
  if (!(await draw.isEnabled())) { await playTurn(p); assert.ok(await awaitTurn(p)); } // the starter's discard-only turn
  const hand = p.getByRole("region", { name: "Your hand" });
  const before = await handLabels(p);
  await p.getByRole("button", { name: "Take", exact: true }).click();
  await hand.getByRole("heading", { name: `Your hand (${before.length + 1})` }).waitFor();
  await p.getByRole("button", { name: "Return", exact: true }).click();
  await hand.getByRole("heading", { name: `Your hand (${before.length})` }).waitFor();
  assert.deepEqual(await handLabels(p), before);
  await draw.click();
  await hand.getByRole("heading", { name: `Your hand (${before.length + 1})` }).waitFor();
  await hand.locator("button.card").first().dragTo(p.locator(".pile"));
  await hand.getByRole("heading", { name: `Your hand (${before.length})` }).waitFor();
  await p.context().close();
});

test("a second player finds a public table in the lobby and joins it; a private one is joined by its code", async () => {
  const host = await page(b);
  await host.goto(at());
  await host.getByLabel("Your name").fill("Host");
  await host.getByLabel("Seats").selectOption("3");
  await host.getByRole("button", { name: "Create", exact: true }).click();
  await host.getByText("Waiting for players").waitFor();
  const guest = await page(b);
  await guest.goto(at());
  await guest.getByLabel("Your name").fill("Guest");
  await guest.getByRole("listitem").filter({ hasText: "1/3" }).getByRole("button", { name: "Join" }).first().click();
  await guest.getByText("Waiting for players").waitFor();
  await host.getByRole("listitem").filter({ hasText: "Guest" }).waitFor(); // the host's page follows the room

  await host.goto(at());
  await host.getByLabel("Private").check();
  await host.getByRole("button", { name: "Create", exact: true }).click();
  const code = await host.locator(".code").innerText();
  await guest.goto(at());
  await guest.getByLabel("Code").fill(code);
  await guest.getByRole("button", { name: "Join", exact: true }).first().click(); // the code form comes before the list
  await guest.getByText(code).waitFor();
  await host.context().close();
  await guest.context().close();
});
