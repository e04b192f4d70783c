// A duplicate tournament in the web app (issue 27, decision 0029), against the real stack: a player
// creates one (2 tables x 1 deal, two seats, expert bots) on the Tournaments screen, enters it, starts it,
// goes to their table from the tournament's page and plays the deal with the table UI, comes back by the
// score sheet, closes it once every deal is over, and sees the standings, the deal's comparison tables
// and every table's replay — the standings shown equal what the server's GetTournamentStandings says.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { at, awaitTurn, browser, call, page, playTurn, sheet } from "./helpers.mjs";

let b, tournamentId;
before(async () => { b = await browser(); });
after(async () => { await b?.close(); });

test("create, enter, start, play my table, close: the standings shown are the server's", async () => {
  const p = await page(b);
  await p.goto(at("#/tournaments"));
  await p.getByRole("heading", { name: "Create a tournament" }).waitFor();
  await p.getByLabel("Tournament name").fill("Friday duplicate");
  await p.getByLabel("Your name").fill("Ada");
  await p.getByLabel(/^Seats/).selectOption("2");
  await p.getByLabel(/^Deals/).selectOption("1");
  await p.getByLabel(/^Tables/).selectOption("2");
  await p.getByLabel("Bot level").selectOption({ label: "Expert" });
  await p.getByRole("button", { name: "Create", exact: true }).click();
  await p.getByRole("status").getByText("Taking entries").waitFor();
  tournamentId = new URL(p.url()).hash.split("/")[2];
  assert.match(tournamentId, /^t-/);
  // it is listed
  await p.getByRole("link", { name: "Tournaments" }).click();
  await p.getByRole("link", { name: "Friday duplicate" }).first().waitFor();
  await p.goto(at(`#/tournament/${tournamentId}`));

  await p.getByRole("button", { name: "Enter", exact: true }).click();
  await p.getByText("You are entered.").waitFor();
  await p.getByLabel("Bot level").selectOption({ label: "Expert" });
  await p.getByRole("button", { name: "Start the tournament" }).click();
  await p.getByRole("status").getByText(/Playing/).waitFor();
  const entrants = p.getByRole("region", { name: "Entrants" });
  await entrants.getByText(/Table 1 · Seat 1: Ada · you/).waitFor();
  assert.equal(await entrants.getByText(/Table 2 · Seat \d: bot/).count(), 2);

  // my table: the deal's room, played by clicks with the table UI
  await p.getByRole("button", { name: "Play deal 1" }).click();
  await p.getByRole("region", { name: "Your hand" }).waitFor();
  while (await awaitTurn(p)) await playTurn(p);
  await sheet(p).getByRole("heading", { name: /Match over/ }).waitFor();
  await sheet(p).getByRole("button", { name: "Back to the tournament" }).click();

  // every deal of every table over: the organiser closes it
  await p.getByRole("status").getByText("Deals played: 2 / 2").waitFor();
  await p.getByRole("button", { name: "Close the tournament" }).click();
  const standings = p.getByRole("region", { name: "Standings" });
  await standings.locator("tbody tr").first().waitFor();
  const shown = await standings.locator("tbody tr").evaluateAll((rows) =>
    rows.map((r) => [...r.children].map((td) => td.textContent.trim())));

  const server = await call("TournamentService", "GetTournamentStandings", { tournamentId });
  const expected = server.standings.map((s) => [
    String(s.place), s.entrant.bot ? "bot" : `${s.entrant.name} (you)`,
    `Table ${s.entrant.table} · Seat ${(s.entrant.seat ?? 0) + 1}`,
    String(s.matchpoints ?? 0), String(s.rawTotal ?? 0)]);
  assert.equal(expected.length, 4);
  assert.deepEqual(shown, expected);
  // matchpoints over two tables: each seat of the deal shares 1 point with its other table's seat
  assert.equal(server.standings.reduce((sum, s) => sum + (s.matchpoints ?? 0), 0), 2);

  // the deal's comparison tables: one per seat position, each with both tables' scores
  const byDeal = p.getByRole("region", { name: "Deal by deal" });
  for (const seat of [1, 2]) {
    const table = byDeal.getByRole("table", { name: `Deal 1, seat ${seat}` });
    const cells = await table.locator("tbody tr").evaluateAll((rows) => rows.map((r) => r.children[2].textContent));
    const cmp = server.comparisons.find((c) => (c.seat ?? 0) === seat - 1);
    assert.deepEqual(cells, cmp.results.map((x) => String(x.score ?? 0)));
  }
  // each table's replay
  const replays = p.getByRole("region", { name: "Replays" });
  assert.equal(await replays.getByRole("link").count(), 2);
  await replays.getByRole("link", { name: "Replay: Table 2, Deal 1" }).click();
  await p.getByRole("status").getByText(/Round 1 is dealt/).waitFor();
  const room2 = server.rooms.find((r) => r.table === 2).roomId;
  assert.equal(new URL(p.url()).hash, `#/replay/${room2}`);
  await p.context().close();
});

test("the tournament's pages speak Arabic too", async () => {
  assert.ok(tournamentId, "the first test's tournament");
  const ar = await page(b, { lang: "ar" });
  await ar.goto(at(`#/tournament/${tournamentId}`));
  await ar.getByRole("status").getByText("مغلقة").waitFor();
  await ar.getByRole("region", { name: "الترتيب" }).getByRole("columnheader", { name: "نقاط المقارنة" }).waitFor();
  await ar.getByRole("table", { name: "التوزيع ١، المقعد ١" }).waitFor();
  await ar.goto(at("#/tournaments"));
  await ar.getByRole("heading", { name: "إنشاء بطولة" }).waitFor();
  await ar.getByRole("link", { name: "Friday duplicate" }).first().waitFor();
  await ar.context().close();
});
