// Play now in the browser (docs/decisions/0028-matchmaking.md): two pages ask for a two-seat table and
// land at the same one, the match started by itself; first a third page, in Arabic, waits and cancels.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { at, browser, page } from "./helpers.mjs";

let b;
before(async () => { b = await browser(); });
after(async () => { await b?.close(); });

async function lobby(p, name, { ar = false } = {}) {
  await p.goto(at());
  await p.getByLabel(ar ? "اسمك" : "Your name").fill(name);
  await p.getByLabel(ar ? "المقاعد" : "Seats").selectOption("2");
}

test("a waiting player cancels; two players press Play now and land at the same table", async () => {
  const [one, two, three] = [await page(b), await page(b), await page(b, { lang: "ar" })];
  await lobby(three, "Tres", { ar: true });
  await three.getByLabel("النمط").selectOption("saudi"); // another pool: never at the others' table
  await three.getByRole("button", { name: "العب الآن", exact: true }).click();
  await three.getByText("جارٍ البحث عن طاولة…").waitFor();
  await three.getByTestId("ticket-wait").waitFor();
  await three.getByRole("button", { name: "إلغاء", exact: true }).click();
  await three.getByRole("button", { name: "العب الآن", exact: true }).waitFor();
  assert.equal(await three.evaluate(() => sessionStorage.getItem("hand.ticket")), null);

  await lobby(one, "Uno");
  await lobby(two, "Dos");
  await one.getByRole("button", { name: "Play now", exact: true }).click();
  await one.getByText("Looking for a table…").waitFor();
  await two.getByRole("button", { name: "Play now", exact: true }).click();
  for (const p of [one, two]) await p.getByRole("region", { name: "Your hand" }).waitFor();
  const [r1, r2] = [one, two].map((p) => new URL(p.url()).hash.split("/")[2]);
  assert.equal(r1, r2);
  for (const p of [one, two]) {
    await p.getByText("Uno").first().waitFor();
    await p.getByText("Dos").first().waitFor();
  }
});
