// Phone first and Arabic (issue 26, items 8 and 9), on a 390×844 screen: after laying melds the hand and
// Discard are on screen without scrolling, every touch target is at least 44 px high; a move made while
// the network is down shows "Reconnecting…" (never the browser's "Failed to fetch") and is sent again
// with the same action id once it is back, applied once; in Arabic the numbers read with their minus
// sign first, the timer's unit, the modes, the bots and the log lines are Arabic sentences.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { SEED_STALL_2, at, awaitTurn, browser, call, page, sheet, startMatch } from "./helpers.mjs";

let b;
before(async () => { b = await browser(); });
after(async () => { await b?.close(); });

const PHONE = { width: 390, height: 844 };
const hand = (p) => p.getByRole("region", { name: /^(Your hand|ورقك)$/ });
const discardButton = (p) => p.getByRole("button", { name: /^(Discard|ارمِ)$/ });

/** Visible things a finger presses (buttons, cards, links, form controls) lower than 44 px. */
async function smallTargets(p) {
  // measured at rest: a card sliding in is drawn scaled down for 0.2 s (app.css, card-in)
  await p.evaluate(() => Promise.all(document.getAnimations().map((a) => a.finished.catch(() => null))));
  return p.locator("button, a[href], select, input:not([type=radio]):not([type=checkbox]), [role=button]").evaluateAll(
    (els) => els.filter((e) => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== "hidden")
      .map((e) => [e.getAttribute("aria-label") || e.textContent.trim(), Math.round(e.getBoundingClientRect().height)])
      .filter(([, h]) => h < 44));
}

/** The box of `locator` lies inside the viewport as the page is now (no scrolling done here). */
async function onScreen(p, locator, what) {
  const box = await locator.boundingBox();
  const { h } = await p.evaluate(() => ({ h: innerHeight }));
  assert.ok(box && box.y >= 0 && box.y + box.height <= h + 0.5, `${what} is off screen: ${JSON.stringify(box)} of ${h}`);
}

/** The seeded opening (seed 5 deals the player 57 of the 51 needed, as in session.test.mjs), laid by
 * Suggest and Lay melds; then the hand and Discard must be on screen at the top and at the bottom of
 * the page, without scrolling to them, and every target at least 44 px high. */
async function openAndCheck(p, name, ar) {
  assert.ok(await awaitTurn(p));
  await p.getByRole("button", { name: ar ? "اسحب" : "Draw", exact: true }).click();
  await p.getByRole("button", { name: ar ? "اقترح" : "Suggest" }).click();
  await p.getByRole("region", { name: ar ? "التجهيز" : "Staging" }).locator(".group.green").first().waitFor();
  await p.getByRole("button", { name: ar ? "انزل المجموعات" : "Lay melds" }).click();
  await p.getByRole("region", { name: ar ? "الطاولة" : "Table" }).locator(".meld", { hasText: name }).first().waitFor();
  await hand(p).locator("button.card").first().waitFor();
  for (const where of ["top", "bottom"]) {
    await p.evaluate((w) => scrollTo(0, w === "top" ? 0 : document.documentElement.scrollHeight), where);
    await p.waitForFunction(() => new Promise((r) => requestAnimationFrame(() => r(true))));
    await onScreen(p, hand(p), `the hand (page scrolled to the ${where})`);
    await onScreen(p, discardButton(p), `Discard (page scrolled to the ${where})`);
  }
  await p.evaluate(() => scrollTo(0, 0));
  assert.deepEqual(await smallTargets(p), [], "touch targets under 44 px");
  // and the turn ends with a discard, pressed where it is
  await hand(p).locator("button.card").first().click();
  await discardButton(p).click();
  await p.getByRole("button", { name: /^(Discard|ارمِ)$/, disabled: true }).waitFor();
}

test("phone, English: after laying melds the hand and Discard stay on screen; touch targets are 44 px", async () => {
  const p = await page(b, PHONE);
  await startMatch(p, { name: "Opener", seed: "5" });
  await openAndCheck(p, "Opener", false);
  await p.context().close();
});

test("phone, Arabic: the same on screen, and the mode, the bots, the timer and the log in Arabic", async () => {
  const p = await page(b, { lang: "ar", ...PHONE });
  await p.goto(at("", { seed: "5" }));
  // the modes: translated names, each with a line saying what it is; ids only as the options' values
  const modeSelect = p.getByLabel("النمط");
  assert.equal(await modeSelect.locator("option:checked").innerText(), "هاند");
  await p.locator("#mode-desc").getByText(/اللعبة الأصلية/).waitFor();
  const labels = await modeSelect.locator("option").allInnerTexts();
  assert.ok(labels.every((l) => /[\u0600-\u06ff]/.test(l) && !/^[a-z0-9-]+$/.test(l)), JSON.stringify(labels));
  assert.ok(labels.includes("هاند (إرم)") && labels.includes("كلاسيكي ٢٠١٩"), JSON.stringify(labels));
  await modeSelect.selectOption("r2019");
  await p.locator("#mode-desc").getByText(/حتى ٥ لاعبين/).waitFor();
  await modeSelect.selectOption("hand");
  await p.getByLabel("اسمك").fill("ليلى");
  await p.getByLabel("الجولات").selectOption("1");
  await p.getByRole("button", { name: "إنشاء", exact: true }).click();
  await p.getByRole("main").getByText("هاند", { exact: true }).waitFor(); // the waiting room names the mode
  await p.getByRole("button", { name: /املأ/ }).click();
  // the log: the room's events as Arabic sentences, the bots by their Arabic names ("bot-1" on the wire)
  const waitingLog = p.getByRole("log", { name: "log" });
  for (const line of ["فُتحت الغرفة (هاند)", "جلس ليلى", "ليلى متصل", "جلس روبوت ١", "جلس روبوت ٣"]) {
    await waitingLog.getByText(line, { exact: true }).waitFor();
  }
  await p.getByRole("button", { name: /ابدأ/ }).click();
  const roomId = new URL(p.url()).hash.split("/")[2];
  // the bots are "روبوت ١" …, the timer counts in Arabic digits and seconds
  const seating = p.getByRole("region", { name: "الجلسة" });
  await seating.getByText("روبوت ٢").waitFor();
  assert.equal(await p.getByText(/bot-\d/).count(), 0);
  const timer = await p.getByLabel("timer").innerText();
  assert.match(timer, /[٠-٩]+ ث/, timer);
  assert.doesNotMatch(timer, /[0-9]|\bs\b/, timer);
  await openAndCheck(p, "ليلى", true);
  const log = p.getByRole("list", { name: "log" });
  await log.getByText(/^روبوت [١-٣] /).first().waitFor(); // the bots' moves
  const lines = await log.locator("li").allInnerTexts();
  assert.ok(lines.length > 0 && lines.every((l) => /[\u0600-\u06ff]/.test(l) && !/\b[a-z]+_[a-z_]+\b|bot-/.test(l)),
    JSON.stringify(lines));
  const { room } = await call("RoomService", "GetRoom", { roomId });
  assert.equal(room.preset, "hand");
  await p.context().close();
});

/** The action id of an Act request (a UUID in its body, binary Connect or gRPC-Web alike). */
const actionId = (body) => /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/.exec(body?.toString("latin1") ?? "")?.[0];

/** The discards seat 0 made, as the ledger recorded them (once it has caught up with `n`). */
async function seatDiscards(roomId, atLeast) {
  for (let tries = 0; ; tries++) {
    const r = await call("LedgerService", "GetReplay", { roomId }).catch(() => ({ events: [] }));
    const mine = (r.events ?? []).filter((e) => e.moveMade && (e.moveMade.seat ?? 0) === 0 && e.moveMade.action?.discard);
    if (mine.length >= atLeast || tries > 100) return mine;
    await new Promise((res) => setTimeout(res, 100));
  }
}

test("offline: a discard shows 'reconnecting', is sent again with the same action id when back, and applied once", async () => {
  const p = await page(b, { lang: "ar", ...PHONE });
  const roomId = await startMatch(p, { name: "سالم", turn: "120" });
  assert.ok(await awaitTurn(p));
  const draw = p.getByRole("button", { name: "اسحب", exact: true });
  if (await draw.isEnabled()) {
    await draw.click();
    await p.waitForFunction(() => document.querySelector("section.hand")?.getAttribute("aria-busy") === "false");
  }
  const held = Number(await hand(p).getAttribute("data-held"));
  await hand(p).locator("button.card").first().click();
  // the Act reaches the server, but its answer is lost and the network goes down: the page cannot
  // know whether the move was applied, so it must send the same action again
  const ids = [];
  let lose = true;
  await p.route("**/hand.v1.RoomService/Act", async (route) => {
    ids.push(actionId(route.request().postDataBuffer()));
    if (!lose) return route.continue();
    lose = false;
    await route.fetch(); // the server applies it
    await p.context().setOffline(true);
    return route.abort("internetdisconnected");
  });
  await discardButton(p).click();
  const banner = p.getByRole("status").filter({ hasText: "إعادة الاتصال…" });
  await banner.waitFor();
  await p.waitForTimeout(1500); // a few tries while offline
  assert.equal(await p.getByText(/Failed to fetch/).count(), 0);
  assert.equal(await p.getByRole("alert").count(), 0);
  await p.context().setOffline(false);
  await banner.waitFor({ state: "hidden" });
  await p.waitForFunction((n) => Number(document.querySelector("section.hand")?.dataset.held) === n - 1, held);
  assert.ok(ids.length >= 2, JSON.stringify(ids));
  assert.ok(ids[0] && ids.every((x) => x === ids[0]), `every try the same action id: ${JSON.stringify(ids)}`);
  assert.equal(await p.getByRole("alert").count(), 0, "the retry was refused");
  // the server applied it once: one discard of seat 0 in the room's record, the seat's hand one card smaller
  const mine = await seatDiscards(roomId, 1);
  await p.waitForTimeout(500);
  assert.equal((await seatDiscards(roomId, 1)).length, 1, JSON.stringify(mine));
  assert.equal(await p.evaluate(() => window.__hand.gaps), 0); // the stream came back from its last seq + 1
  await p.context().close();
});

test("Arabic: negative scores and ratings read with the minus sign first, in Arabic digits", async () => {
  const p = await page(b, { lang: "ar", ...PHONE });
  await p.goto(at("", { seed: SEED_STALL_2 })); // a round the bot ends on turn 5 (helpers.mjs)
  await p.getByLabel("اسمك").fill("نورة");
  await p.getByLabel("الجولات").selectOption("1");
  await p.getByLabel("المقاعد").selectOption("2");
  await p.getByLabel(/وقت الدور/).fill("5");
  await p.getByRole("button", { name: "إنشاء", exact: true }).click();
  await p.getByRole("button", { name: /املأ/ }).click();
  await p.getByText(/\(آلي\)/).first().waitFor();
  await p.getByRole("button", { name: /ابدأ/ }).click();
  // the player stalls: the timer plays two turns, then a bot plays the seat to the end of the round
  const over = sheet(p).getByRole("heading", { name: "انتهت المباراة" });
  await over.waitFor();
  const scores = await sheet(p).locator("tbody tr td:nth-child(3)").allInnerTexts();
  assert.ok(scores.every((s) => /^-?[٠-٩]+$/.test(s.trim())), JSON.stringify(scores));
  const negatives = await minusPlaces(p, sheet(p).locator("tbody tr td:nth-child(3)"));
  await sheet(p).getByRole("button", { name: "لوحة المتصدرين" }).click();
  const mine = p.getByRole("region", { name: "إحصاءاتك" });
  await mine.getByText(/التقييم/).waitFor();
  const rating = await minusPlaces(p, mine.locator("p"));
  const all = [...negatives, ...rating];
  assert.ok(all.length > 0, `no negative number shown: scores ${JSON.stringify(scores)}`);
  for (const [text, minusFirst] of all) assert.ok(minusFirst, `the minus sign is not left of its digits: ${text}`);
  await p.context().close();
});

/** For each element of `locator` holding a minus sign: its text, and whether the minus is drawn to
 * the left of the digits that follow it (as "-44" reads), measured on the rendered glyphs. */
async function minusPlaces(p, locator) {
  return locator.evaluateAll((els) => els.flatMap((el) => {
    const walk = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    const out = [];
    for (let n = walk.nextNode(); n; n = walk.nextNode()) {
      const i = n.data.search(/[-−]\s*[0-9٠-٩]/);
      if (i < 0) continue;
      const r = document.createRange();
      r.setStart(n, i); r.setEnd(n, i + 1);
      const minus = r.getBoundingClientRect();
      const j = n.data.slice(i + 1).search(/[0-9٠-٩]/) + i + 1;
      r.setStart(n, j); r.setEnd(n, j + 1);
      const digit = r.getBoundingClientRect();
      out.push([el.textContent.trim(), minus.right <= digit.left + 0.5]);
    }
    return out;
  }));
}
