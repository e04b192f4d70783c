// The screenshots of docs/web/: HAND_WEB_URL=… node e2e/screenshots.mjs ../docs/web
// A waiting public room makes the lobby list a table; the table mid-round shows the staging area.
import { awaitTurn, browser, page, playTurn, sheet, startMatch } from "./helpers.mjs";

const out = process.argv[2] ?? "../docs/web";
const url = process.env.HAND_WEB_URL;
const b = await browser();
try {
  const other = await page(b);
  await other.goto(url);
  await other.getByLabel("Your name").fill("Omar");
  await other.getByLabel("Seats").selectOption("3");
  await other.getByRole("button", { name: "Create", exact: true }).click();
  await other.getByText("Waiting for players").waitFor();

  const p = await page(b, { width: 1000, height: 900 });
  await p.goto(url);
  await p.getByRole("button", { name: "Join", exact: true }).first().waitFor();
  await p.locator(".tables .details").first().waitFor(); // the host, rounds and turn time (GetRoom)
  await p.screenshot({ path: `${out}/lobby.png` });
  await startMatch(p, { name: "Ada" });
  await awaitTurn(p);
  await playTurn(p);
  await awaitTurn(p);
  await p.getByRole("button", { name: "Draw", exact: true }).click();
  await p.getByRole("button", { name: "Suggest" }).click();
  const hand = p.getByRole("region", { name: "Your hand" }).locator("button.card");
  await hand.first().click();
  await hand.nth(1).click();
  await p.getByRole("button", { name: "Stage selected" }).click();
  await p.getByRole("region", { name: "Staging" }).locator(".group").first().waitFor();
  await p.getByText(/ \/ /).first().waitFor({ timeout: 5000 }).catch(() => {});
  await p.screenshot({ path: `${out}/table-en.png` });
  await p.getByRole("button", { name: "العربية" }).click();
  await p.getByRole("region", { name: "ورقك" }).waitFor();
  await p.screenshot({ path: `${out}/table-ar.png` });
  await p.getByRole("button", { name: "English" }).click();
  await p.getByRole("button", { name: "Clear" }).click(); // the staging area survives the language switch
  while (await awaitTurn(p)) await playTurn(p);
  await sheet(p).getByRole("heading", { name: /Match over/ }).waitFor();
  await p.screenshot({ path: `${out}/score-sheet.png` });

  // an English phone mid-turn: the card just drawn marked, the suggested opening staged, the dock at the bottom
  const en = await page(b, { width: 390, height: 844 });
  await startMatch(en, { name: "Sam", seed: "3" });
  await awaitTurn(en);
  await en.getByRole("button", { name: "Draw", exact: true }).click();
  await en.getByRole("region", { name: "Your hand" }).getByRole("button", { name: /\(new\)$/ }).waitFor();
  await en.getByRole("button", { name: "Suggest" }).click();
  await en.locator(".staging .group.green").first().waitFor();
  await en.screenshot({ path: `${out}/table-en-phone.png` });
  await en.goto(`${url}#/rules/saudi`);
  await en.getByRole("heading", { name: /Rules: Saudi Hand/ }).waitFor();
  await en.screenshot({ path: `${out}/rules-en-phone.png` });

  const phone = await page(b, { lang: "ar", width: 390, height: 844 });
  await startMatch(phone, { name: "ليلى" });
  await awaitTurn(phone);
  await phone.screenshot({ path: `${out}/table-ar-phone.png` });
} finally {
  await b.close();
}
