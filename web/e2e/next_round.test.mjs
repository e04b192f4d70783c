// The next round never starts behind the score sheet (issue 26, item 5): a round ends while the
// player reads its sheet, the room deals the next one at once, and the sheet says so — "Round 2 has
// started", whose turn it is and, on the player's own turn, its live countdown — with a way back to
// the table that shows the player's turn. On a desktop in English and on a phone in Arabic.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { SEED_QUICK_EXPERT, awaitTurn, browser, myTurn, page, playTurn, sheet, startMatch } from "./helpers.mjs";

let b;
before(async () => { b = await browser(); });
after(async () => { await b?.close(); });

async function nextRound(lang, size) {
  const p = await page(b, { lang, ...size });
  // SEED_QUICK_EXPERT (helpers.mjs): the expert bot goes out within the first five turns, so round 1 ends
  // after two of the player's turns; round 2 is dealt by the bot, so it starts with the player's turn
  await startMatch(p, { name: lang === "ar" ? "سارة" : "Sara", seats: "2", rounds: "3", level: lang === "ar" ? "خبير" : "Expert",
    seed: SEED_QUICK_EXPERT });
  while (await awaitTurn(p)) await playTurn(p);
  const s = sheet(p);
  await s.getByRole("heading", { name: lang === "ar" ? /الجولة ١/ : /Round 1/ }).waitFor();
  const started = s.getByRole("alert").filter({ hasText: lang === "ar" ? /بدأت الجولة ٢/ : /Round 2 has started/ });
  await started.waitFor();
  // whoever starts round 2, the player's turn comes while the sheet is open: the banner says it, with the timer
  await started.getByText(lang === "ar" ? /دورك/ : /Your turn/).waitFor();
  const left = Number(await started.getByLabel("timer").getAttribute("data-left"));
  assert.ok(left > 0, `timer ${left}`);
  await started.getByRole("button", { name: lang === "ar" ? /إلى الطاولة/ : /Back to the table/ }).click();
  await s.waitFor({ state: "detached" });
  await myTurn(p).waitFor();
  assert.ok(await p.getByRole("region", { name: lang === "ar" ? "ورقك" : "Your hand" }).isVisible());
  await p.context().close();
}

test("the next round's start and the player's turn are shown on the score sheet (en, desktop)", () => nextRound("en", {}));
test("the next round's start and the player's turn are shown on the score sheet (ar, phone)", () => nextRound("ar", { width: 390, height: 844 }));
