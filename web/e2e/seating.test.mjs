// Seating and coming back (docs/decisions/0030-seating-and-coming-back.md): in a partnership match the
// page names your partner and the opponents and lays the seats round the table in play order (you at
// the bottom, the next player to your right), the dealer and the first player marked as the server says;
// a player who stalls sees the timer's turns in the log, then "You are away" with "I'm back" on their own
// page, and after it plays their own turn again — on a phone, every button at least 44 px high.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { at, awaitTurn, browser, call, myTurn, page, playTurn, startMatch } from "./helpers.mjs";

let b;
before(async () => { b = await browser(); });
after(async () => { await b?.close(); });

test("a partnership match shows your partner, both teams and the seats round the table in play order", async () => {
  const p = await page(b);
  await p.goto(at());
  await p.getByLabel("Your name").fill("Pat");
  await p.getByLabel("Mode").selectOption("partnership");
  await p.getByLabel("Rounds").selectOption("1");
  await p.getByRole("button", { name: "Create", exact: true }).click();
  await p.getByRole("button", { name: "Fill with bots" }).click();
  await p.getByText("(bot)").first().waitFor();
  await p.getByRole("button", { name: "Start the match" }).click();
  await p.getByRole("region", { name: "Your hand" }).waitFor();
  const roomId = new URL(p.url()).hash.split("/")[2];

  const seating = p.getByRole("region", { name: "Seating" });
  await seating.getByText("Your partner: Bot 2").waitFor(); // seat 0's partner sits opposite
  await seating.getByText("Opponents: Bot 1 + Bot 3").waitFor();
  const spots = await seating.locator("li.spot").evaluateAll((els) => els.map((e) => [Number(e.dataset.seat), e.className]));
  assert.deepEqual(spots.map(([seat]) => seat), [0, 1, 2, 3]); // play order from you
  const place = Object.fromEntries(spots.map(([seat, cls]) => [seat, cls.split(" ")[1]]));
  assert.deepEqual(place, { 0: "bottom", 1: "right", 2: "top", 3: "left" });
  assert.match(spots[2][1], /partner/);

  const { room } = await call("RoomService", "GetRoom", { roomId });
  const dealer = seating.locator("li.spot").filter({ has: p.getByTitle("Dealer") });
  const first = seating.locator("li.spot").filter({ has: p.getByTitle("First to play") });
  assert.equal(await dealer.count(), 1);
  assert.equal(Number(await dealer.getAttribute("data-seat")), room.dealer ?? 0);
  assert.equal(Number(await first.getAttribute("data-seat")), room.firstPlayer ?? 0);
  assert.equal(room.firstPlayer ?? 0, ((room.dealer ?? 0) + 1) % 4);
  assert.deepEqual(room.seats.map((s) => [s.team ?? 0, s.partner ?? 0]), [[0, 2], [1, 3], [0, 0], [1, 1]]);
  await p.context().close();
});

test("the one who stalls sees the timer's turns, 'You are away' and 'I'm back', then plays again (phone)", async () => {
  const p = await page(b, { width: 390, height: 844 });
  const roomId = await startMatch(p, { name: "Nap", turn: "5" });
  const log = p.getByRole("list", { name: "log" });
  await log.getByText(/^The timer played your turn: /).first().waitFor(); // the first turn the timer played
  const away = p.getByRole("region", { name: "You are away" });
  await away.waitFor(); // two in a row: a bot plays the seat, and the player's own page says so
  const back = away.getByRole("button", { name: "I'm back" });
  const box = await back.boundingBox();
  assert.ok(box && box.height >= 44 && box.width >= 44, JSON.stringify(box));
  const small = await p.locator("main button:not(.card)").evaluateAll((els) => els
    .filter((e) => e.offsetParent !== null).map((e) => [e.textContent, e.getBoundingClientRect().height])
    .filter(([, h]) => h < 44));
  assert.deepEqual(small, [], "touch targets under 44 px");
  await back.click();
  await away.waitFor({ state: "detached" });
  const { room } = await call("RoomService", "GetRoom", { roomId });
  assert.equal(room.seats[0].away ?? false, false);
  if (await awaitTurn(p)) { // the seat's next turn is the player's again (unless the round ended first)
    assert.ok(await myTurn(p).isVisible());
    await playTurn(p);
  }
  await p.context().close();
});
