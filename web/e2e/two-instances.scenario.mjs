// Two room instances in a real browser (tests/e2e/test_web_two_instances.py): page B is served by
// the second instance (HAND_WEB_URL_B) and hosts a room there, so B owns it; page A, served by the
// stack's web server (HAND_WEB_URL), joins it by code and plays two turns: its Act and Watch go cross-origin
// to B, learnt from the JoinRoom answer (no redirect). After a reload (its owners forgotten) page A's
// first Watch meets ROOM_MOVED at its own server and follows it to B, marked hand-redirected: 1.
// Not named *.test.mjs: the browser suite (node --test e2e/) does not pick it up.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { awaitTurn, browser, myTurn, page, playTurn, sheet } from "./helpers.mjs";

const A = new URL(process.env.HAND_WEB_URL ?? "http://127.0.0.1:8080/").origin;
const B = new URL(process.env.HAND_WEB_URL_B ?? "http://127.0.0.1:8081/").origin;
let b;
before(async () => { b = await browser(); });
after(async () => { await b?.close(); });

/** Play ``turns`` turns of this page (fewer if the round ends first). */
/** Play this page's turns whenever they come, until ``stop.done``. */
async function keepPlaying(p, stop) {
  while (!stop.done) {
    if (await myTurn(p).isVisible()) await playTurn(p);
    else await p.waitForTimeout(100);
  }
}

test("a page plays a room owned by another instance, its Act and Watch at that instance", async () => {
  const host = await page(b);
  const guest = await page(b);
  const calls = []; // page A's room calls: [origin, method, marked]
  guest.on("request", (r) => {
    const url = new URL(r.url());
    if (url.pathname.startsWith("/hand.v1.RoomService/") && r.method() === "POST") {
      calls.push([url.origin, url.pathname.split("/")[2], r.headers()["hand-redirected"] === "1"]);
    }
  });
  await host.goto(`${B}/`);
  await host.getByLabel("Your name").fill("Host on B");
  await host.getByLabel("Seats").selectOption("3");
  await host.getByLabel("Private").check();
  await host.getByRole("button", { name: "Create", exact: true }).click();
  const code = await host.locator(".code").innerText();

  await guest.goto(`${A}/`);
  await guest.getByLabel("Your name").fill("Guest on A");
  await guest.getByLabel("Code").fill(code);
  await guest.getByRole("button", { name: "Join", exact: true }).first().click();
  await host.getByRole("listitem").filter({ hasText: "Guest on A" }).waitFor();
  await host.getByRole("button", { name: /Fill with bots/ }).click();
  await host.getByRole("button", { name: /Start the match/ }).click();
  await guest.getByRole("region", { name: "Your hand" }).waitFor();

  // a few turns of the guest are enough: every one of its Acts and its Watch at the owner
  const stop = { done: false };
  const hosting = keepPlaying(host, stop);
  // until two Acts went out (a turn its timer played on a loaded machine sends none), at most six turns
  const actsSent = () => calls.filter(([, m]) => m === "Act").length;
  for (let i = 0; i < 6 && actsSent() < 2 && await awaitTurn(guest); i++) await playTurn(guest);
  stop.done = true;
  await hosting;
  const acts = calls.filter(([, m]) => m === "Act");
  assert.ok(acts.length >= 2, "the guest acted");
  assert.deepEqual([...new Set(acts.map(([o, , marked]) => `${o} ${marked}`))], [`${B} false`],
    "every Act of the guest went to the owner, unmarked");
  assert.ok(calls.some(([o, m]) => o === B && m === "Watch"), "the guest watched at the owner");
  assert.ok(calls.some(([o, m]) => o === A && m === "JoinRoom"), "it joined through its own server");
  const stats = await guest.evaluate(() => window.__handOwners.stats);
  assert.deepEqual(stats, { redirects: 0, fallbacks: 0 });

  calls.length = 0; // a reload forgets the owners: the first Watch is sent home and redirected
  await guest.reload();
  await guest.getByRole("region", { name: "Your hand" }).or(sheet(guest)).first().waitFor();
  const deadline = Date.now() + 30_000;
  while (!calls.some(([o, m, marked]) => o === B && m === "Watch" && marked) && Date.now() < deadline) {
    await guest.waitForTimeout(100);
  }
  assert.deepEqual(calls.filter(([, m]) => m === "Watch").slice(0, 2).map(([o, , marked]) => [o, marked]),
    [[A, false], [B, true]], "home first, refused ROOM_MOVED, then the owner, marked");
  await host.context().close();
  await guest.context().close();
});
