// The web client against the real stack (HAND_WEB_URL), in Debian's chromium: staging and the
// page's session (split from play.test.mjs so that the browser suites share two test workers).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { at, awaitTurn, editIdentity, expectedContentType, browser, handLabels, identityWhen, page, playTurn, sheet, startMatch } from "./helpers.mjs";

let b;
before(async () => { b = await browser(); });
after(async () => { await b?.close(); });

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
