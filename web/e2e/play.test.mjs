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
  await status.getByText(/The match is over/).waitFor();
  const end = await status.innerText();
  await p.getByRole("button", { name: "Step back" }).click();
  await status.getByText(/Round 1 is over/).waitFor();
  await p.getByRole("button", { name: "Step forward" }).click();
  await status.getByText(end).waitFor();
  // "verify this deal": the round was dealt provably fair and verifies from the public record (0022)
  const verify = p.getByRole("region", { name: "Verify this deal" });
  await verify.getByRole("button", { name: "Verify this deal" }).click();
  await verify.getByText("Every deal verified").waitFor();
  await verify.locator('li[data-verdict="VERIFIED"]').first().waitFor();
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
  const before = await handLabels(p);
  await p.reload();
  assert.ok(await awaitTurn(p));
  assert.deepEqual(await handLabels(p), before);
  await playTurn(p); // and the seat still plays
  // a dropped stream reconnects from the last seq + 1: the bots' moves meanwhile arrive, none missed
  await p.evaluate(() => window.__hand.drop());
  assert.ok(await awaitTurn(p));
  const stats = await p.evaluate(() => ({ reconnects: window.__hand.reconnects, gaps: window.__hand.gaps }));
  assert.equal(stats.gaps, 0);
  assert.ok(stats.reconnects >= 1, JSON.stringify(stats));
  await playTurn(p);
  await p.context().close();
});

test("an illegal move shows the server's refusal, in the player's language", async () => {
  for (const lang of ["en", "ar"]) {
    const p = await page(b, { lang });
    await startMatch(p, { name: lang });
    assert.ok(await awaitTurn(p));
    const cards = p.getByRole("region", { name: /Your hand|ورقك/ }).locator("button.card");
    await cards.first().click();
    await p.getByRole("button", { name: /Stage selected|جهّز/ }).click();
    await p.getByRole("region", { name: /Staging|التجهيز/ }).locator(".group").first().waitFor();
    await p.getByRole("button", { name: /Lay melds|انزل/ }).click();
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

test("suggestions fill the staging area, the counter shows the opening total, and the melds are laid", async () => {
  // seed 5 deals seat 0 (the player, fourth to play) a hand whose best opening is 57 of the 51 needed
  const p = await page(b);
  await startMatch(p, { name: "Opener", seed: "5" });
  assert.ok(await awaitTurn(p));
  await p.getByRole("button", { name: "Draw", exact: true }).click();
  const hand = p.getByRole("region", { name: "Your hand" });
  await hand.getByRole("heading", { name: "Your hand (15)" }).waitFor();
  await p.getByRole("button", { name: "Suggest" }).click();
  const staging = p.getByRole("region", { name: "Staging" });
  await staging.getByLabel("Staging green").first().waitFor();
  const counter = await staging.locator(".counter").innerText();
  const [total, threshold] = counter.split("/").map((x) => parseInt(x, 10));
  assert.ok(total >= threshold && threshold === 51, counter);
  assert.equal(await staging.getByLabel("Staging red").count(), 0);
  await p.getByRole("button", { name: "Lay melds" }).click();
  await p.getByRole("region", { name: "Table" }).getByLabel(/by Opener/).first().waitFor();
  const left = 15 - (await p.getByRole("region", { name: "Table" }).getByLabel(/by Opener/).locator(".card").count());
  await hand.getByRole("heading", { name: `Your hand (${left})` }).waitFor();
  await playTurn(p); // and the turn ends with a discard
  await p.context().close();
});

test("the page signs in as this browser's player, and renews its session when it expires or is refused", async () => {
  const p = await page(b);
  await p.goto(at());
  const first = await identityWhen(p);
  assert.match(first.playerId, /^[0-9a-f]{32}$/);
  await p.getByRole("link", { name: "Leaderboard" }).click(); // a new player has no statistics yet
  await p.getByRole("region", { name: "Your statistics" }).getByText(/No finished match yet/).waitFor();
  await p.getByRole("link", { name: "Lobby" }).click();
  // an access token about to expire is refreshed before the next call (the lobby lists tables every 3 s)
  const refreshed = p.waitForRequest((r) => r.url().includes("/hand.v1.AuthService/RefreshSession"));
  await editIdentity(p, { accessExpiresAt: 0 });
  await refreshed;
  const second = await identityWhen(p, { notAccess: first.access, fresh: true });
  assert.equal(second.playerId, first.playerId);
  // a token the server does not accept (a new server key, say): refused, the page signs in again as the
  // same player (the same device) and the call goes through
  await editIdentity(p, { access: "not.a.token", accessExpiresAt: Date.now() + 3_600_000 });
  await startMatch(p, { name: "Signed" });
  const third = await identityWhen(p, { notAccess: "not.a.token" });
  assert.equal(third.playerId, first.playerId);
  assert.ok(await awaitTurn(p));
  await playTurn(p); // the seat is the account's: its moves carry the session
  await p.reload();
  assert.equal((await identityWhen(p)).playerId, first.playerId);
  assert.ok(await awaitTurn(p)); // the stored seat token still works with the same player's session
  // the table's stream refused a session the server does not accept: renewed, and it follows on
  await editIdentity(p, { access: "not.a.token", accessExpiresAt: Date.now() + 3_600_000 });
  await p.evaluate(() => window.__hand.drop());
  assert.equal((await identityWhen(p, { notAccess: "not.a.token" })).playerId, first.playerId);
  await playTurn(p); // its move is accepted, with the renewed session
  assert.ok(p.calls.length > 0 && p.calls.every(([, signed]) => signed), JSON.stringify(p.calls.filter(([, s]) => !s)));
  await p.context().close();
});

test("a device whose clock is two hours ahead keeps its session instead of refreshing on every call", async () => {
  const p = await page(b);
  await p.clock.install({ time: Date.now() + 2 * 3_600_000 });
  let refreshes = 0;
  p.on("request", (r) => { if (r.url().includes("/hand.v1.AuthService/RefreshSession")) refreshes++; });
  await startMatch(p, { name: "Skewed" });
  assert.ok(await awaitTurn(p));
  await playTurn(p);
  assert.equal(refreshes, 0); // the token's lifetime is counted on the device's own clock
  assert.ok(p.calls.length > 3 && p.calls.every(([, signed]) => signed));
  await p.context().close();
});
