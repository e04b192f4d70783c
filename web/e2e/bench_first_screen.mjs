// First screen on a phone-class CPU: HAND_WEB_URL=… node e2e/bench_first_screen.mjs RUNS
// A 390×844 page with Chromium's CPU throttled ×4 (CDP Emulation.setCPUThrottlingRate), a fresh
// context (cold cache) each run. Measured in the page from the end of the document's response (the
// page served): `shown`, the lobby's form on screen (the bundle loaded, parsed and rendered);
// `listed`, the first ListRooms answer received (the page signed in, the public tables asked for).
// Prints one JSON line {runs, shown: {p50, max}, listed: {p50, max}} in ms.
import { at, browser } from "./helpers.mjs";

const runs = Number(process.argv[2] ?? 5);
const rate = Number(process.env.CPU_THROTTLE ?? 4);
const b = await browser();
const shown = [], listed = [];
try {
  for (let i = 0; i < runs; i++) {
    const context = await b.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    await context.addInitScript(() => {
      const w = window;
      w.__listedAt = () => performance.getEntriesByType("resource").find((e) => e.name.includes("/ListRooms"))?.responseEnd;
      new MutationObserver(() => {
        const now = performance.now();
        if (!w.__shown && document.querySelector("main.lobby form button[type=submit]")) w.__shown = now;
      }).observe(document, { subtree: true, childList: true });
    });
    const p = await context.newPage();
    const cdp = await context.newCDPSession(p);
    await cdp.send("Emulation.setCPUThrottlingRate", { rate });
    await p.goto(at());
    await p.waitForFunction(() => window.__shown && window.__listedAt(), null, { timeout: 30_000 });
    const r = await p.evaluate(() => {
      const served = performance.getEntriesByType("navigation")[0].responseEnd;
      return [window.__shown - served, window.__listedAt() - served];
    });
    shown.push(r[0]);
    listed.push(r[1]);
    await context.close();
  }
} finally {
  await b.close();
}
const stats = (v) => { const s = [...v].sort((a, b) => a - b); return { p50: Math.round(s[Math.floor((s.length - 1) / 2)]), max: Math.round(s[s.length - 1]) }; };
console.log(JSON.stringify({ runs, cpuThrottle: rate, shown: stats(shown), listed: stats(listed) }));
