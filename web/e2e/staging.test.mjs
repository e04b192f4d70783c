// Staging lets you try only what can pass (issue 26, items 11 and 6): "Lay melds" waits, saying why,
// while a group is grey or red or the opening is short of its threshold; the colours are explained; a
// card dropped on a staged group joins it (not a new one-card group); a joker on the table shows the
// card it stands for; the card just drawn and the card just taken are marked in the hand, and a take's
// duty (and a refusal while it is pending) says what to do. Seed 3 deals the player (seat 0, second to
// play) an opening of 82 whose third meld holds a joker; seed 5 one of 57.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { awaitTurn, browser, page, playTurn, startMatch } from "./helpers.mjs";

let b;
before(async () => { b = await browser(); });
after(async () => { await b?.close(); });

const T = {
  en: { draw: "Draw", take: "Take", ret: "Return", discard: "Discard", stage: "Stage selected", suggest: "Suggest", lay: "Lay melds",
    clear: "Clear", staging: "Staging", hand: "Your hand", table: "Table", newMark: /\(new\)$/, takenMark: /\(taken\)$/,
    grey: /grey: not yet a meld/, why: /grey group|red group/, under: /needs 51 points: \d+ more/, duty: /You took .+: open this turn \(51 points\)/,
    orReturn: /Or return it/ },
  ar: { draw: "اسحب", take: "خذ", ret: "أرجع", discard: "ارمِ", stage: "جهّز المحدد", suggest: "اقترح", lay: "انزل المجموعات",
    clear: "امسح", staging: "التجهيز", hand: "ورقك", table: "الطاولة", newMark: /\(جديدة\)$/, takenMark: /\(مأخوذة\)$/,
    grey: /رمادي: ليست مجموعة بعد/, why: /الرمادية|الحمراء/, under: /يحتاج ٥١ نقطة: ينقصك [٠-٩]+/, duty: /أخذت .+: انزل في هذا الدور \(٥١ نقطة\)/,
    orReturn: /أو أرجعها/ },
};

const labels = (loc) => loc.evaluateAll((els) => els.map((e) => e.getAttribute("aria-label")));

const PHONE = { width: 390, height: 844 };

async function layWaits(lang, size) {
  const w = T[lang];
  const p = await page(b, { lang, ...size });
  await startMatch(p, { name: lang === "ar" ? "فهد" : "Fahd", seed: "3" });
  assert.ok(await awaitTurn(p));
  await p.getByRole("button", { name: w.draw, exact: true }).click();
  const hand = p.getByRole("region", { name: w.hand });
  const cards = hand.locator("button.card");
  await hand.getByRole("button", { name: w.newMark }).waitFor(); // the card just drawn, marked
  assert.equal((await labels(cards)).filter((l) => w.newMark.test(l)).length, 1);
  // two cards staged: not a meld yet; Lay melds waits and says why; the colours explained
  const staging = p.getByRole("region", { name: w.staging });
  const lay = staging.getByRole("button", { name: w.lay });
  await cards.nth(0).click();
  await cards.nth(1).click();
  await staging.getByRole("button", { name: w.stage }).click();
  await staging.locator(".group").first().waitFor();
  await staging.locator(".why").getByText(w.why).waitFor();
  assert.ok(await lay.isDisabled());
  await staging.getByText(w.grey).waitFor();
  // a third card dropped on that group joins it
  await cards.nth(5).dragTo(staging.locator(".group").first());
  await staging.locator(".group").first().locator(".card").nth(2).waitFor();
  assert.equal(await staging.locator(".group").count(), 1);
  // the suggested opening (82): Lay melds can be sent; groups taken away until it is short of 51: it waits again
  await staging.getByRole("button", { name: w.clear }).click();
  await staging.getByRole("button", { name: w.suggest }).click();
  await staging.locator(".group.green").first().waitFor();
  await p.waitForFunction(() => !document.querySelector(".staging .why"));
  assert.ok(await lay.isEnabled());
  const groups = await staging.locator(".group").count();
  assert.ok(groups >= 2, `${groups} groups`);
  const last = staging.locator(".group").last();
  // the counter shows only an answer for the groups on screen (none while one is on its way)
  const total = async () => parseInt((await staging.locator(".counter bdi").innerText()).replace(/[٠-٩]/g, (d) => "٠١٢٣٤٥٦٧٨٩".indexOf(d)), 10);
  while (await total() >= 51) {
    const before = await staging.locator(".group").count();
    for (let n = await last.locator(".card").count(); n > 0; n--) await last.locator(".card").first().click();
    await p.waitForFunction((k) => document.querySelectorAll(".staging .group").length < k, before);
  }
  await staging.locator(".why").getByText(w.under).waitFor();
  assert.ok(await lay.isDisabled());
  // the whole opening again, laid; its joker on the table names the card it stands for
  await staging.getByRole("button", { name: w.suggest }).click();
  await p.waitForFunction(() => !document.querySelector(".staging .why"));
  await lay.click();
  const table = p.getByRole("region", { name: w.table });
  await table.locator(".meld").first().waitFor();
  const jokers = table.locator(".stands-in");
  await jokers.first().waitFor();
  for (const l of await labels(jokers.locator(".card"))) assert.match(l, /^(Joker as|جوكر بدل) (10|[2-9AJQK])[♠♥♦♣]?$/);
  assert.match(await jokers.first().locator(".as").innerText(), /^= (10|[2-9AJQK])[♠♥♦♣]?$/);
  await playTurn(p);
  await p.context().close();
}

async function takeDuty(lang, size) {
  const w = T[lang];
  const p = await page(b, { lang, ...size });
  await startMatch(p, { name: lang === "ar" ? "منى" : "Mona", seed: "5" });
  assert.ok(await awaitTurn(p));
  await p.getByRole("button", { name: w.take, exact: true }).click();
  const hand = p.getByRole("region", { name: w.hand });
  await hand.getByRole("button", { name: w.takenMark }).waitFor();
  await hand.locator(".duty").getByText(w.duty).waitFor();
  await hand.locator(".duty").getByText(w.orReturn).waitFor();
  // discarding another card now is refused; the refusal says what the take asks
  await hand.locator("button.card:not([data-mark])").first().click();
  await hand.getByRole("button", { name: w.discard, exact: true }).click();
  await p.getByRole("alert").getByText(w.duty).waitFor();
  // returned: the mark and the duty are gone, the turn goes on by the stock
  await hand.getByRole("button", { name: w.ret, exact: true }).click();
  await hand.locator(".duty").waitFor({ state: "detached" });
  assert.equal((await labels(hand.locator("button.card"))).filter((l) => w.takenMark.test(l)).length, 0);
  await playTurn(p);
  await p.context().close();
}

test("Lay melds waits with its reason; a drop joins a staged group; the drawn card is marked (en, desktop)", () => layWaits("en", {}));
test("Lay melds waits with its reason; a drop joins a staged group; the drawn card is marked (ar, phone)", () => layWaits("ar", PHONE));
test("a take is marked, its duty says what to do, and a refusal while it is pending repeats it (en, desktop)", () => takeDuty("en", {}));
test("a take is marked, its duty says what to do, and a refusal while it is pending repeats it (ar, phone)", () => takeDuty("ar", PHONE));
