// How the table feels (issue 26, item 13 and "What to build" 3): sounds made in code with a mute kept
// across reloads; card motion that stops for a player who asks for reduced motion; a phone held
// sideways (844×390) keeps the hand and the moves on screen; the replay's autoplay speed.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { SEED_QUICK_EXPERT, awaitTurn, browser, myTurn, page, playTurn, sheet, startMatch } from "./helpers.mjs";

let b;
before(async () => { b = await browser(); });
after(async () => { await b?.close(); });

const sounds = (p) => p.evaluate(() => [...(window.__handSounds ?? [])]);

test("a sound when the turn comes; muted, none, and the mute survives a reload (ar)", async () => {
  const p = await page(b, { lang: "ar", width: 390, height: 844 });
  await startMatch(p, { name: "صوت", seats: "2" });
  assert.ok(await awaitTurn(p));
  await p.waitForFunction(() => (window.__handSounds ?? []).includes("turn"));
  const mute = p.getByRole("button", { name: "كتم الأصوات" });
  assert.equal(await mute.getAttribute("aria-pressed"), "false");
  await mute.click();
  assert.equal(await mute.getAttribute("aria-pressed"), "true");
  const before = (await sounds(p)).length;
  await playTurn(p);
  assert.ok(await awaitTurn(p)); // the next turn comes, silently
  assert.equal((await sounds(p)).length, before, JSON.stringify(await sounds(p)));
  await p.reload();
  await myTurn(p).or(sheet(p)).first().waitFor();
  assert.equal(await p.getByRole("button", { name: "كتم الأصوات" }).getAttribute("aria-pressed"), "true");
  assert.deepEqual(await sounds(p), []);
  await p.context().close();
});

const animation = (loc) => loc.evaluate((e) => getComputedStyle(e).animationName);

test("cards move in, unless the player asks for reduced motion", async () => {
  const p = await page(b);
  // a deal whose first player is the bot (SEED_QUICK_EXPERT), so the pile has a card when the player's
  // turn comes; were the player first, the pile would stay empty until the turn timer's discard (30 s)
  await startMatch(p, { name: "Motion", seats: "2", seed: SEED_QUICK_EXPERT });
  assert.ok(await awaitTurn(p));
  const card = p.getByRole("region", { name: "Your hand" }).locator("button.card").first();
  assert.equal(await animation(card), "card-in");
  await p.emulateMedia({ reducedMotion: "reduce" });
  assert.equal(await animation(card), "none");
  assert.equal(await animation(p.locator(".pile .card").first()), "none");
  await p.context().close();
});

/** The box of `locator` lies inside the viewport as the page is now. */
async function onScreen(p, locator, what) {
  const box = await locator.boundingBox();
  const h = await p.evaluate(() => innerHeight);
  assert.ok(box && box.y >= 0 && box.y + box.height <= h + 0.5, `${what} is off screen: ${JSON.stringify(box)} of ${h}`);
}

test("a phone held sideways: the hand and the moves on screen; then the replay's autoplay at 4×", async () => {
  const p = await page(b, { width: 844, height: 390 });
  await startMatch(p, { name: "Sideways", seats: "2", level: "Expert", seed: SEED_QUICK_EXPERT }); // a short round
  assert.ok(await awaitTurn(p));
  const hand = p.getByRole("region", { name: "Your hand" });
  for (const where of ["top", "bottom"]) {
    await p.evaluate((w) => scrollTo(0, w === "top" ? 0 : document.documentElement.scrollHeight), where);
    await p.waitForFunction(() => new Promise((r) => requestAnimationFrame(() => r(true))));
    await onScreen(p, hand.locator("button.card").first(), `the hand (scrolled to the ${where})`);
    await onScreen(p, hand.getByRole("button", { name: "Draw", exact: true }), `Draw (scrolled to the ${where})`);
    await onScreen(p, hand.getByRole("button", { name: "Discard", exact: true }), `Discard (scrolled to the ${where})`);
  }
  while (await awaitTurn(p)) await playTurn(p);
  await sheet(p).getByRole("button", { name: "Replay" }).click();
  await p.getByRole("status").getByText(/Round 1 is dealt/).waitFor(); // the replay is loaded (at the first deal)
  await p.getByRole("button", { name: "To the start" }).click();
  await p.getByLabel("Speed").selectOption("4");
  const step = async () => Number(/Step\s+(\d+)/.exec(await p.getByRole("status").innerText())?.[1]);
  // read once the jump is shown (read before it, the step was the deal's or the end's, the count too high)
  await p.waitForFunction(() => /Step\s+0\s*\//.test(document.querySelector('[role="status"]')?.textContent ?? ""));
  const from = await step();
  await p.getByRole("button", { name: "Play" }).click();
  // 4×: a step every 175 ms, so 6 steps well within 2 s (at 1×, 700 ms a step, it would take 4.2 s)
  await p.waitForFunction((f) => Number(/Step\s+(\d+)/.exec(document.querySelector('[role="status"]')?.textContent ?? "")?.[1]) >= f + 6,
    from, { timeout: 2000 });
  await p.getByRole("button", { name: "Pause" }).click();
  await p.context().close();
});
