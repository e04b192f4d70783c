// The lobby (issue 26, item 10): the seat counts follow the mode (from the engine's options); a public
// table shows its host, rounds and turn time; a room's invite link fills in its code; Leave frees the
// seat; a waiting-room error is gone once the match starts; a running public table is watched from the
// lobby (ListRooms with `playing`); the way back to one's own running table.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { at, browser, page } from "./helpers.mjs";

let b;
before(async () => { b = await browser(); });
after(async () => { await b?.close(); });

const seatOptions = (p, label) => p.getByLabel(label).locator("option").allInnerTexts();

test("the seat counts follow the mode, in English and in Arabic", async () => {
  const p = await page(b);
  await p.goto(at());
  await p.getByLabel("Mode").selectOption("partnership");
  await p.waitForFunction(() => document.querySelectorAll("select option").length && [...document.querySelectorAll("label")]
    .find((l) => l.textContent.startsWith("Seats"))?.querySelectorAll("option").length === 1);
  assert.deepEqual(await seatOptions(p, "Seats"), ["4"]);
  await p.getByLabel("Mode").selectOption("r2019");
  await p.getByLabel("Seats").locator("option", { hasText: "5" }).waitFor({ state: "attached" });
  assert.deepEqual(await seatOptions(p, "Seats"), ["2", "3", "4", "5"]);
  await p.getByLabel("Mode").selectOption("hand");
  await p.waitForFunction(() => [...document.querySelectorAll("label")].find((l) => l.textContent.startsWith("Seats"))
    ?.querySelectorAll("option").length === 3);
  assert.deepEqual(await seatOptions(p, "Seats"), ["2", "3", "4"]);
  const ar = await page(b, { lang: "ar", width: 390, height: 844 });
  await ar.goto(at());
  await ar.getByLabel("النمط").selectOption("saudi-partnership");
  await ar.waitForFunction(() => [...document.querySelectorAll("label")].find((l) => l.textContent.startsWith("المقاعد"))
    ?.querySelectorAll("option").length === 1);
  assert.deepEqual(await seatOptions(ar, "المقاعد"), ["٤"]);
  await p.context().close();
  await ar.context().close();
});

test("a public table's host, rounds and turn time; the invite link; Leave; the error gone at the start; the way back", async () => {
  const host = await page(b);
  await host.goto(at());
  await host.getByLabel("Your name").fill("Hostess");
  await host.getByLabel("Rounds").selectOption("3");
  await host.getByLabel("Turn time").fill("45");
  await host.getByLabel("Seats").selectOption("3");
  await host.getByRole("button", { name: "Create", exact: true }).click();
  await host.getByText("Waiting for players").waitFor();
  const code = (await host.locator(".code").innerText()).trim();
  const roomId = new URL(host.url()).hash.split("/")[2];
  // another player's lobby lists the table with its host, rounds and turn time
  const guest = await page(b);
  await guest.goto(at());
  await guest.getByLabel("Your name").fill("Guest");
  await guest.locator(".tables li", { hasText: "host Hostess" }).filter({ hasText: "3 rounds" }).filter({ hasText: "45 s a turn" }).first().waitFor();
  // the invite link opens the lobby with the code filled in; joining seats the guest
  const link = await host.getByLabel("Invite link").inputValue();
  assert.ok(link.endsWith(`#/join/${code}`), link);
  await guest.goto(link);
  assert.equal(await guest.getByLabel("Code").inputValue(), code);
  await guest.getByLabel("Your name").fill("Guest");
  await guest.locator("form", { has: guest.getByLabel("Code") }).getByRole("button", { name: "Join", exact: true }).click();
  await guest.getByText("Waiting for players").waitFor();
  await host.locator(".seats li", { hasText: "Guest" }).waitFor();
  // Leave: the guest is back in the lobby, the seat is free again
  await guest.getByRole("button", { name: "Leave" }).click();
  await guest.getByRole("heading", { name: "Create a room" }).waitFor();
  await host.locator(".seats li", { hasText: "Guest" }).waitFor({ state: "detached" });
  // a refused start (seats empty) leaves an error; once the match starts it is gone
  await host.getByRole("button", { name: "Start the match" }).click();
  await host.getByRole("alert").waitFor();
  await host.getByRole("button", { name: "Fill with bots" }).click();
  await host.getByText(/\(bot\)/).first().waitFor();
  await host.getByRole("button", { name: "Start the match" }).click();
  await host.getByRole("region", { name: "Your hand" }).waitFor();
  assert.equal(await host.getByRole("alert").count(), 0);
  // the guest, back in the lobby, finds the running table among those being played and watches it
  const running = guest.getByRole("region", { name: "Tables being played" }).locator("li", { hasText: "host Hostess" });
  await running.getByRole("button", { name: "Watch" }).click();
  await guest.getByRole("status").getByText(/Spectating/).first().waitFor();
  assert.equal(new URL(guest.url()).hash, `#/room/${roomId}/watch`);
  // to the lobby and back to the running table
  await host.getByRole("link", { name: "Lobby" }).click();
  const mine = host.getByRole("region", { name: "Your tables" });
  await mine.getByText(/Round 1/).waitFor();
  await mine.getByRole("button", { name: "Back to the table" }).click();
  await host.getByRole("region", { name: "Your hand" }).waitFor();
  assert.equal(new URL(host.url()).hash, `#/room/${roomId}`);
  await host.context().close();
  await guest.context().close();
});
