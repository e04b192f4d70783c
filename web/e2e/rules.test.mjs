// A rules screen per mode (issue 26, item 13 / "What to build" 3): the mode's rules in sentences, from
// the options the engine resolves for its preset (RulesService.StartRound), in English and Arabic;
// reached from the lobby's mode line and from a room, another mode chosen on the screen itself.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { at, browser, page } from "./helpers.mjs";

let b;
before(async () => { b = await browser(); });
after(async () => { await b?.close(); });

const section = (p, name) => p.getByRole("region", { name });

test("the rules of the chosen mode, from the lobby and switched on the screen (en, desktop)", async () => {
  const p = await page(b);
  await p.goto(at());
  await p.getByLabel("Mode").selectOption("eram-hand");
  await p.locator("#mode-desc").getByRole("link", { name: "Rules" }).click();
  await p.getByRole("heading", { name: "Rules: Hand (ERAM)" }).waitFor();
  await section(p, "Taking the discard").getByText(/a player who has not opened must open that turn/).waitFor();
  await section(p, "Taking the discard").getByText(/A take is final/).waitFor();
  await section(p, "Going out").getByText(/without a discard/).waitFor();
  await section(p, "Opening").getByText(/at least 51 points/).waitFor();
  // another mode: its own rules, not the last one's
  await p.getByLabel("Mode").selectOption("dananeer");
  await p.getByRole("heading", { name: "Rules: Dananeer" }).waitFor();
  await section(p, "Scoring and the match").getByText(/share the win/).waitFor();
  await section(p, "Jokers and aces").getByText(/a second may be laid off onto a run/).waitFor();
  assert.equal(await section(p, "Taking the discard").getByText(/A take is final/).count(), 0);
  await p.getByLabel("Mode").selectOption("saudi");
  await section(p, "Opening").getByText(/must beat the last opening total/).waitFor();
  await p.context().close();
});

test("the rules of a room's mode from the room, in Arabic on a phone", async () => {
  const p = await page(b, { lang: "ar", width: 390, height: 844 });
  await p.goto(at());
  await p.getByLabel("النمط").selectOption("saudi-partnership");
  await p.getByRole("button", { name: "إنشاء", exact: true }).click();
  await p.getByText("بانتظار اللاعبين").waitFor();
  await p.getByRole("link", { name: "القواعد" }).click();
  await p.getByRole("heading", { name: "قواعد سعودي شراكة" }).waitFor();
  await section(p, "اللاعبون").getByText(/أربعة لاعبين في فريقين/).waitFor();
  await section(p, "النزول").getByText(/أول من ينزل يحتاج ٥١ نقطة/).waitFor();
  const text = await p.locator("main").innerText();
  assert.ok(!/[0-9]/.test(text), `Western digits on the Arabic rules screen: ${text}`);
  await p.context().close();
});
