// The table beside the apps players know (issue 26, items 8 and 13): on a 390 px phone the header is one
// line of 44 px targets (icons with their names for screen readers), in English and Arabic; a panel for
// your own seat; the whole discard pile and the whole log, not only the top card and eight lines; a
// visible urgency cue on the timer of your own turn; a spectator sees no move buttons at all.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { at, awaitTurn, browser, page, playTurn, sheet, startMatch } from "./helpers.mjs";

let b;
before(async () => { b = await browser(); });
after(async () => { await b?.close(); });

const PHONE = { width: 390, height: 844 };

test("phone: the header is one line of 44 px targets, in English and Arabic, on the lobby and the table", async () => {
  for (const lang of ["en", "ar"]) {
    const p = await page(b, { lang, ...PHONE });
    await p.goto(at());
    await p.getByRole("link", { name: lang === "ar" ? "الردهة" : "Lobby" }).waitFor();
    const check = async (where) => {
      const got = await p.locator("header").evaluate((h) => {
        const items = [...h.querySelectorAll("h1 a, nav a, nav button")].filter((e) => e.getClientRects().length > 0);
        const boxes = items.map((e) => [e.getAttribute("aria-label") || e.textContent.trim(), e.getBoundingClientRect().toJSON()]);
        return { height: h.getBoundingClientRect().height, overflow: document.documentElement.scrollWidth - innerWidth, boxes };
      });
      const tops = got.boxes.map(([, r]) => Math.round(r.top + r.height / 2));
      assert.ok(Math.max(...tops) - Math.min(...tops) <= 4, `${lang} ${where}: the header wraps ${JSON.stringify(got)}`);
      assert.ok(got.height <= 60, `${lang} ${where}: the header is ${got.height} px high`);
      assert.ok(got.overflow <= 0, `${lang} ${where}: the page is ${got.overflow} px too wide`);
      const small = got.boxes.filter(([, r]) => r.height < 44 || r.width < 44).map(([n, r]) => [n, r.width, r.height]);
      assert.deepEqual(small, [], `${lang} ${where}: header targets under 44 px`);
      assert.equal(got.boxes.length, 6, JSON.stringify(got.boxes.map(([n]) => n))); // title, three pages, mute, language
    };
    await check("lobby");
    await startMatch(p, { name: lang === "ar" ? "ليلى" : "Ada" });
    await check("table");
    // the links keep their names for screen readers and still lead where they say
    await p.getByRole("link", { name: lang === "ar" ? "لوحة المتصدرين" : "Leaderboard" }).click();
    await p.waitForURL(/#\/leaders$/);
    await p.context().close();
  }
});

test("your own seat has its panel; the whole discard pile and the whole log can be read", async () => {
  const p = await page(b);
  await startMatch(p, { name: "Ada", rounds: "3" });
  const mine = p.getByRole("region", { name: "Your seat" });
  await mine.getByText("Ada").waitFor();
  await mine.getByText("playing").waitFor();
  const log = p.getByRole("list", { name: "log" });
  const pileCount = async () => Number((await p.locator(".pile h3").innerText()).match(/\((\d+)\)/)[1]);
  // play until the pile holds several cards and the log more than eight lines
  for (let i = 0; i < 6 && ((await log.locator("li").count()) <= 8 || (await pileCount()) < 3); i++) {
    if (!(await awaitTurn(p))) break;
    await playTurn(p);
  }
  if (await sheet(p).isVisible()) await sheet(p).getByRole("button", { name: "Close" }).click().catch(() => {});
  assert.ok((await log.locator("li").count()) > 8, `${await log.locator("li").count()} log lines`);
  const box = await log.evaluate((e) => ({ scroll: e.scrollHeight, client: e.clientHeight, overflow: getComputedStyle(e).overflowY }));
  assert.ok(box.overflow === "auto" || box.overflow === "scroll", JSON.stringify(box));
  // the pile's history: every card of the pile, oldest first, the top last
  const all = p.getByRole("button", { name: /^Whole pile/ });
  assert.equal(await all.getAttribute("aria-expanded"), "false");
  await all.click();
  const history = p.getByRole("region", { name: "Discard pile history" });
  await history.waitFor();
  // one snapshot of the page: the bots go on playing, and a discard between two reads
  // would compare the history before it with the top after it
  const { n, cards, top } = await p.evaluate(() => {
    const pile = document.querySelector(".pile");
    const label = (e) => e.getAttribute("aria-label");
    return {
      n: Number(pile.querySelector("h3").textContent.match(/\((\d+)\)/)[1]),
      cards: [...document.querySelectorAll(".pile-history [role=img]")].map(label),
      top: label(pile.querySelector(":scope > .card, :scope > button.card, :scope > span.card")),
    };
  });
  assert.ok(n >= 2, `pile ${n}`);
  assert.equal(cards.length, n, JSON.stringify(cards));
  assert.equal(cards[cards.length - 1], top);
  await all.click();
  await history.waitFor({ state: "detached" });
  await p.context().close();
});

test("phone, Arabic: the timer of your own turn turns urgent in its last seconds; your seat panel says away", async () => {
  const p = await page(b, { lang: "ar", ...PHONE });
  await startMatch(p, { name: "نور", turn: "5" });
  assert.ok(await awaitTurn(p));
  const timer = p.getByLabel("timer");
  await p.locator(".timer.urgent").waitFor();
  const color = await timer.evaluate((e) => getComputedStyle(e).color);
  assert.notEqual(color, await p.locator(".status-line p").evaluate((e) => getComputedStyle(e.parentElement).color));
  await p.getByRole("status").getByText(/بقي [٠-٩]+ ث/).waitFor(); // the warning, in words
  const mine = p.getByRole("region", { name: "مقعدك" });
  await mine.getByText("نور").waitFor();
  await p.getByRole("region", { name: "أنت غائب" }).waitFor(); // the timer played twice: away
  await mine.getByText("غائب").waitFor();
  await p.context().close();
});

test("a spectator sees no Draw, Take, Discard or sort buttons and no seat panel of its own", async () => {
  const player = await page(b);
  const roomId = await startMatch(player, { name: "Host" });
  const p = await page(b, PHONE);
  await p.goto(at(`#/room/${roomId}/watch`));
  await p.getByRole("status").getByText(/Spectating/).waitFor();
  await p.getByRole("region", { name: "seats" }).getByText("Host").waitFor();
  for (const name of ["Draw", "Take", "Discard", "Return", "Sort by suit", "Sort by rank", "Lay melds", "Suggest"]) {
    assert.equal(await p.getByRole("button", { name, exact: true }).count(), 0, name);
  }
  assert.equal(await p.locator("main button.card").count(), 0, "cards a spectator could press");
  assert.equal(await p.getByRole("region", { name: "Your seat" }).count(), 0);
  await player.context().close();
  await p.context().close();
});
