// Quick chat in the browser (docs/decisions/0025-quick-chat.md): three players at one table, the third
// on a phone in Arabic. A phrase one seat sends is seen at its seat by the others; the third mutes the
// sender, whose next phrase the second still sees and the third does not; the phone's chat button is a
// 44 px target that does not cover the hand, and the phone's player chats too.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { at, browser, page } from "./helpers.mjs";

let b;
before(async () => { b = await browser(); });
after(async () => { await b?.close(); });

async function join(p, name, code, ar = false) {
  await p.goto(at());
  await p.getByLabel(ar ? "اسمك" : "Your name").fill(name);
  await p.getByLabel(ar ? "الرمز" : "Code").fill(code);
  await p.getByRole("button", { name: ar ? "انضمام" : "Join", exact: true }).first().click();
  await p.getByText(code).waitFor();
}

const box = async (locator) => locator.boundingBox();
const overlaps = (a, c) => a.x < c.x + c.width && c.x < a.x + a.width && a.y < c.y + c.height && c.y < a.y + a.height;

test("quick chat is seen by the other seats, and a muted sender's phrases are not shown to the one who muted", async () => {
  const host = await page(b);
  await host.goto(at());
  await host.getByLabel("Your name").fill("Host");
  await host.getByLabel("Seats").selectOption("3");
  await host.getByLabel("Private").check();
  await host.getByRole("button", { name: "Create", exact: true }).click();
  const code = await host.locator(".code").innerText();
  const guest = await page(b);
  await join(guest, "Guest", code);
  const phone = await page(b, { lang: "ar", width: 390, height: 844 });
  await join(phone, "Third", code, true);
  await host.getByRole("listitem").filter({ hasText: "Third" }).waitFor();
  await host.getByRole("button", { name: "Start the match" }).click();
  for (const p of [host, guest, phone]) await p.getByRole("region", { name: /Your hand|ورقك/ }).waitFor();

  await host.getByRole("button", { name: "Quick chat" }).click();
  await host.getByRole("group", { name: "Phrases" }).getByRole("button", { name: "Well played!" }).click();
  await guest.getByLabel("Host says").filter({ hasText: "Well played!" }).waitFor();
  await phone.getByLabel("Host يقول").filter({ hasText: "أحسنت!" }).waitFor(); // in the page's language

  // on the phone: the chat button is a 44 px target that does not cover the hand
  const toggle = phone.getByRole("button", { name: "دردشة سريعة" });
  const t = await box(toggle);
  assert.ok(t.width >= 44 && t.height >= 44, JSON.stringify(t));
  assert.ok(!overlaps(t, await box(phone.getByRole("region", { name: "ورقك" }))), "the chat button covers the hand");
  await toggle.click();
  await phone.getByRole("button", { name: "كتم Host" }).click();
  await phone.getByRole("button", { name: /إلغاء كتم Host/, pressed: true }).waitFor();

  await host.getByRole("button", { name: "Quick chat" }).click();
  await host.getByRole("group", { name: "Phrases" }).getByRole("button", { name: "Thanks!" }).click();
  await guest.getByLabel("Host says").filter({ hasText: "Thanks!" }).waitFor();
  await phone.waitForTimeout(1000); // the phrase reached the guest's page a moment ago: the phone's too, were it shown
  assert.equal(await phone.locator(".bubble").filter({ hasText: "شكراً" }).count(), 0, "a muted sender's phrase was shown");
  assert.deepEqual(JSON.parse(await phone.evaluate(() => localStorage.getItem(
    `hand.chat.mute.${location.hash.split("/")[2]}`))), ["seat:0"]); // kept per room in this browser

  // the phone's player chats (an emote) and the guest sees it at the phone's seat
  await phone.getByRole("group", { name: "العبارات" }).getByRole("button", { name: "👍" }).click();
  await guest.getByLabel("Third says").filter({ hasText: "👍" }).waitFor();
  for (const p of [host, guest, phone]) await p.context().close();
});
