// Click → own move shown, measured in the page: HAND_WEB_URL=… node e2e/bench_click.mjs MATCHES
// Prints one JSON line {n, p50, p99, max, samples}. Plays one-round matches against bots by clicks.
import { awaitTurn, browser, page, startMatch } from "./helpers.mjs";

const matches = Number(process.argv[2] ?? 1);
const b = await browser();
const samples = [];
const confirmed = [];
try {
  for (let m = 0; m < matches; m++) {
    const p = await page(b);
    await startMatch(p, { name: `bench${m}` });
    await p.evaluate(() => {
      // shown: the hand's card count on screen changes (the move drawn at once, optimistically);
      // confirmed: the server's view from the Watch stream shows it (data-held, the held count)
      const section = () => document.querySelector("section.hand");
      const count = () => section()?.querySelector("h3")?.textContent ?? "";
      const held = () => section()?.getAttribute("data-held") ?? "";
      const w = window;
      w.__samples = []; w.__confirmed = [];
      document.addEventListener("click", () => { w.__click = performance.now(); w.__before = count(); w.__held = held(); w.__open = 2; }, true);
      new MutationObserver(() => {
        if (!w.__click) return;
        const now = performance.now();
        if (w.__before !== null && count() !== w.__before) { w.__samples.push(now - w.__click); w.__before = null; w.__open--; }
        if (w.__held !== null && held() !== w.__held) { w.__confirmed.push(now - w.__click); w.__held = null; w.__open--; }
        if (w.__open <= 0) w.__click = 0;
      }).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true, attributeFilter: ["data-held"] });
    });
    const hand = p.getByRole("region", { name: "Your hand" });
    while (await awaitTurn(p)) {
      const draw = p.getByRole("button", { name: "Draw", exact: true });
      if (await draw.isEnabled()) {
        const n = await p.evaluate(() => window.__confirmed.length);
        await draw.click();
        await p.waitForFunction((k) => window.__confirmed.length > k, n);
      }
      await hand.locator("button.card").first().click({ noWaitAfter: true });
      await p.evaluate(() => { window.__click = 0; }); // selecting a card is not a move
      const n = await p.evaluate(() => window.__confirmed.length);
      const discard = p.getByRole("button", { name: "Discard", exact: true });
      await discard.click();
      await p.waitForFunction((k) => window.__confirmed.length > k, n);
    }
    samples.push(...(await p.evaluate(() => window.__samples)));
    confirmed.push(...(await p.evaluate(() => window.__confirmed)));
    await p.context().close();
  }
} finally {
  await b.close();
}
const stats = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const q = (x) => sorted[Math.min(sorted.length - 1, Math.round(x * (sorted.length - 1)))];
  return { n: sorted.length, p50: q(0.5), p99: q(0.99), max: sorted[sorted.length - 1] };
};
console.log(JSON.stringify({ shown: stats(samples), confirmed: stats(confirmed) }));
