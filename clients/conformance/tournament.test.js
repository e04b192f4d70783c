'use strict';
// A duplicate tournament through the public contract (TournamentService,
// tournament_service.proto; docs/clients.md "Duplicate tournaments";
// decision 0029), written from proto/ only, against running services: an
// organiser and a player signed in as guests, a tournament of 2 tables x 1
// deal of a one-round, two-seat match (bots fill the empty seats), listed,
// entered, started; the player's table is a real room (RoomService) that the
// seat token opens; the player plays its seat to the end (bots the rest),
// the organiser closes it, and the standings are checked against the
// ledger's score sheets. The refusals a client meets on the way are
// checked with their RuleError code and params.
//
// Addresses: HAND_LEDGER_ADDR (TournamentService is served there),
// HAND_ROOM_ADDR, HAND_AUTH_ADDR (every tournament call but the reads needs a
// session). Without them the tests are skipped, unless
// HAND_CONFORMANCE_REQUIRED=1 (then they fail).
//
//   node --test clients/conformance/tournament.test.js

const { describe, it, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { ErrorCode, refused, sleep } = require('./lib/refusals');
const crypto = require('node:crypto');

const hand = require('./lib/hand');
const cards = require('./lib/cards');
const { reader } = require('./lib/stream');
const { roomClient } = require('./lib/owner');

const { num, has, enumValue, enumName } = hand;
const { status: Code } = hand.grpc;

const ENV = {
  ledger: process.env.HAND_LEDGER_ADDR,
  room: process.env.HAND_ROOM_ADDR,
  auth: process.env.HAND_AUTH_ADDR,
};
const missing = Object.entries(ENV).filter(([, v]) => !v).map(([k]) => k);
const required = process.env.HAND_CONFORMANCE_REQUIRED === '1';
const skip = missing.length > 0 && !required ? `no address for ${missing.join(', ')}` : false;
const PLAY_TIMEOUT_MS = Number(process.env.HAND_CONFORMANCE_TOURNAMENT_MS || 120000);

const TABLES = 2;
const DEALS = 1; // the fewest deals allowed
const SEATS = 2; // the fewest seats allowed

const TStatus = (name) => enumValue('hand.v1.TournamentStatus', `TOURNAMENT_STATUS_${name}`);


const S = {
  auth: null,
  tour: null, // TournamentService at the ledger's address
  room: null, // RoomService (lib/owner.js: each room's owner)
  ledger: null,
  org: null, // { token, playerId }
  ada: null,
  id: null, // the tournament's id
  started: null, // the Tournament once RUNNING
  table: null, // Ada's GetMyTableResponse
  closed: false,
};

async function signIn(name) {
  const signed = await S.auth.SignInGuest({ device_id: crypto.randomBytes(24).toString('hex'), display_name: name });
  return { token: signed.session.access_token, playerId: signed.player.player_id };
}

const PLAYING = () => enumValue('hand.v1.RoomStatus', 'ROOM_STATUS_PLAYING');
const TOLERATED = ['STALE_ACTION', 'NOT_YOUR_TURN', 'WRONG_PHASE', 'ROUND_OVER', 'MATCH_NOT_STARTED'].map(ErrorCode);

/** The card to discard: the highest hand value, jokers kept. */
function choose(hand) {
  const naturals = hand.filter((c) => !cards.isJoker(c));
  const pool = naturals.length ? naturals : hand;
  return pool.reduce((best, c) => (cards.value(c) > cards.value(best) ? c : best), pool[0]);
}

/**
 * Play `seat` of a room with its seat token until the match ends: Watch from the
 * room's head, and on each of the seat's turns draw from the stock, then discard
 * the highest card. A refusal that a race with the timer explains is let go.
 * Returns the number of moves made.
 */
async function playSeat(roomId, token, seat, ms) {
  const head = num((await S.room.GetRoom({ room_id: roomId })).room.next_seq);
  const stream = reader(S.room.Watch({ room_id: roomId, seat_token: token, from_seq: head }));
  const deadline = Date.now() + ms;
  let view = null;
  let room = null;
  let moves = 0;
  try {
    for (;;) {
      assert.ok(Date.now() < deadline, 'the match ends in time');
      const m = await stream.next(60000);
      if (has(m, 'view')) view = m.view;
      if (has(m, 'room')) room = m.room;
      if (m.message === 'event' && m.event.event === 'match_ended') return moves;
      if (m.message === 'snapshot' && room && room.status !== PLAYING()) return moves; // over already
      if (stream.pending() > 0) continue; // catch up before deciding
      if (!(view && room && room.status === PLAYING() && !has(view, 'result') && has(view, 'turn')
        && has(view.turn, 'seat') && view.turn.seat === seat)) continue;
      const phase = enumName('hand.v1.TurnPhase', view.turn.phase);
      const action = phase === 'TURN_PHASE_DRAW' ? { draw_stock: {} } : { discard: { card: choose(view.hand) } };
      try {
        await S.room.Act({ room_id: roomId, seat_token: token, action_id: crypto.randomUUID(), action,
          expected_seq: num(room.next_seq) });
        moves += 1;
      } catch (err) {
        if (!(err.rule && TOLERATED.includes(err.rule.code))) throw err;
      }
    }
  } finally {
    stream.close();
  }
}

const as = (who) => ({ token: who ? who.token : null });

describe('conformance: a duplicate tournament (TournamentService)', { skip }, () => {
  before(async () => {
    S.auth = hand.connect('hand.v1.AuthService', ENV.auth);
    S.tour = hand.connect('hand.v1.TournamentService', ENV.ledger);
    S.ledger = hand.connect('hand.v1.LedgerService', ENV.ledger);
    S.room = roomClient(ENV.room);
    S.org = await signIn('Organiser');
    S.ada = await signIn('Ada');
  });

  after(() => {
    for (const c of [S.auth, S.tour, S.ledger, S.room]) if (c) c.close();
  });

  it('creates a tournament as the signed-in organiser; refuses no session and bad sizes', async (t) => {
    const request = {
      name: 'Conformance duplicate', organiser_name: 'Organiser', rules: { preset: 'hand' },
      rounds: 1, seat_count: SEATS, deals: DEALS, tables: TABLES, turn_seconds: 30,
      bot_level: 'BOT_LEVEL_BEGINNER',
    };
    await refused(S.tour.CreateTournament(request, as(null)), Code.UNAUTHENTICATED, 'UNAUTHENTICATED');
    const noDeals = await refused(S.tour.CreateTournament({ ...request, deals: 0 }, as(S.org)),
      Code.INVALID_ARGUMENT, 'INVALID_ARGUMENT');
    assert.deepEqual({ ...noDeals.params }, { field: 'deals', min: '1', max: '9' });
    // a table size the rules refuse: INVALID_OPTIONS naming seat_count, as CreateRoom refuses it
    const seats = await refused(S.tour.CreateTournament({ ...request, seat_count: 6 }, as(S.org)),
      Code.INVALID_ARGUMENT, 'INVALID_OPTIONS');
    assert.equal(seats.params.field, 'seat_count', JSON.stringify(seats.params));
    t.diagnostic(`deals 0: ${JSON.stringify(noDeals.params)} "${noDeals.message}"`);

    const created = (await S.tour.CreateTournament(request, as(S.org))).tournament;
    S.id = created.tournament_id;
    assert.ok(S.id.length > 0, 'a tournament id');
    assert.equal(created.status, TStatus('OPEN'));
    assert.equal(created.you_organise, true, 'the caller organises it');
    assert.equal(created.organiser_name, 'Organiser');
    assert.deepEqual([created.rounds, created.seat_count, created.deals, created.tables, created.turn_seconds],
      [1, SEATS, DEALS, TABLES, 30]);
    assert.equal(created.bot_level, enumValue('hand.v1.BotLevel', 'BOT_LEVEL_BEGINNER'));
    assert.equal(created.rules.preset, 'hand');
    assert.deepEqual(created.entrants, [], 'nobody has entered yet');
    assert.equal(created.deals_total, 0, 'deals_total is 0 before the start');
    assert.ok(created.created_at > 0);
  });

  it('lists it (newest first) and shows it to anyone; an unknown id is refused', async () => {
    const listed = await S.tour.ListTournaments({ page_size: 200 }, as(null));
    const mine = listed.tournaments.find((x) => x.tournament_id === S.id);
    assert.ok(mine, 'ListTournaments shows the new tournament');
    assert.equal(mine.you_organise, false, 'not the organiser without a session');
    const created = listed.tournaments.map((x) => x.created_at);
    assert.deepEqual(created, [...created].sort((a, b) => b - a), 'newest first');
    const seen = (await S.tour.GetTournament({ tournament_id: S.id }, as(S.ada))).tournament;
    assert.equal(seen.you_organise, false, 'another player does not organise it');
    assert.equal(seen.status, TStatus('OPEN'));
    const unknown = await refused(S.tour.GetTournament({ tournament_id: 't-no-such' }, as(null)),
      Code.NOT_FOUND, 'TOURNAMENT_NOT_FOUND');
    assert.equal(unknown.params.field, 'tournament_id', JSON.stringify(unknown.params));
  });

  it('enters the player once (entering twice changes nothing); nothing to show before the start', async () => {
    await refused(S.tour.EnterTournament({ tournament_id: S.id, player_name: 'Ada' }, as(null)),
      Code.UNAUTHENTICATED, 'UNAUTHENTICATED');
    const entered = (await S.tour.EnterTournament({ tournament_id: S.id, player_name: 'Ada' }, as(S.ada))).tournament;
    assert.equal(entered.entrants.length, 1);
    const [ada] = entered.entrants;
    assert.equal(ada.name, 'Ada');
    assert.equal(ada.you, true, 'the caller is marked you');
    assert.equal(ada.bot, false);
    assert.match(ada.handle, /^h-[a-z2-7]{26}$/, 'an entrant is shown by its public handle');
    assert.ok(!has(ada, 'table') && !has(ada, 'seat'), 'no table or seat before the start');
    const again = (await S.tour.EnterTournament({ tournament_id: S.id, player_name: 'Ada' }, as(S.ada))).tournament;
    assert.equal(again.entrants.length, 1, 'entering twice changes nothing');
    const byOrg = (await S.tour.GetTournament({ tournament_id: S.id }, as(S.org))).tournament;
    assert.equal(byOrg.entrants[0].you, false, 'you marks only the caller');
    assert.equal(byOrg.entrants[0].handle, ada.handle, 'everyone sees the same handle');

    const early = await refused(S.tour.GetMyTable({ tournament_id: S.id }, as(S.ada)),
      Code.FAILED_PRECONDITION, 'TOURNAMENT_WRONG_STATE');
    assert.equal(early.params.status, 'open', JSON.stringify(early.params));
    const notIn = await refused(S.tour.GetMyTable({ tournament_id: S.id }, as(S.org)),
      Code.NOT_FOUND, 'TOURNAMENT_NOT_ENTERED');
    assert.equal(notIn.params.field, 'tournament_id');
    const hidden = await refused(S.tour.GetTournamentStandings({ tournament_id: S.id }, as(S.org)),
      Code.FAILED_PRECONDITION, 'TOURNAMENT_RESULTS_HIDDEN');
    assert.equal(hidden.params.status, 'open', JSON.stringify(hidden.params));
  });

  it('refuses entries past the seats of a fixed number of tables (TOURNAMENT_FULL)', async () => {
    const small = (await S.tour.CreateTournament({ name: 'Full', organiser_name: 'Organiser', rounds: 1,
      seat_count: 2, deals: 1, tables: 1 }, as(S.org))).tournament;
    await S.tour.EnterTournament({ tournament_id: small.tournament_id, player_name: 'Ada' }, as(S.ada));
    await S.tour.EnterTournament({ tournament_id: small.tournament_id, player_name: 'Organiser' }, as(S.org));
    const third = await signIn('Third');
    const full = await refused(S.tour.EnterTournament({ tournament_id: small.tournament_id, player_name: 'Third' },
      as(third)), Code.FAILED_PRECONDITION, 'TOURNAMENT_FULL');
    assert.equal(full.params.seats, '2', JSON.stringify(full.params));
  });

  it('lets only the organiser start it: every table seated, bots in the empty seats', async () => {
    const rule = await refused(S.tour.StartTournament({ tournament_id: S.id }, as(S.ada)),
      Code.PERMISSION_DENIED, 'TOURNAMENT_NOT_ORGANISER');
    assert.equal(rule.params.field, 'tournament_id', JSON.stringify(rule.params));
    const started = (await S.tour.StartTournament({ tournament_id: S.id }, as(S.org))).tournament;
    S.started = started;
    assert.equal(started.status, TStatus('RUNNING'));
    assert.equal(started.tables, TABLES);
    assert.equal(started.deals_total, TABLES * DEALS, 'deals_total = tables x deals');
    assert.deepEqual(started.entrants.map((e) => [e.table, e.seat, e.bot, e.name === 'Ada']),
      [[1, 0, false, true], [1, 1, true, false], [2, 0, true, false], [2, 1, true, false]],
      'entrants in entry order, table by table, seat by seat; bots fill the rest');
    for (const e of started.entrants) {
      assert.ok(has(e, 'table') && has(e, 'seat'), 'table and seat set after the start (seat 0 included)');
      if (e.bot) assert.equal(e.handle, '', 'a bot has no handle');
    }
    const twice = await refused(S.tour.StartTournament({ tournament_id: S.id }, as(S.org)),
      Code.FAILED_PRECONDITION, 'TOURNAMENT_WRONG_STATE');
    assert.deepEqual([twice.params.status, twice.params.wanted], ['running', 'open'], JSON.stringify(twice.params));
    const late = await refused(S.tour.EnterTournament({ tournament_id: S.id, player_name: 'Late' }, as(S.org)),
      Code.FAILED_PRECONDITION, 'TOURNAMENT_WRONG_STATE');
    assert.equal(late.params.status, 'running', JSON.stringify(late.params));
  });

  it("gives the player its table: a real room, seated as announced, that the seat token opens", { timeout: 30000 }, async () => {
    const mine = await S.tour.GetMyTable({ tournament_id: S.id }, as(S.ada));
    S.table = mine;
    assert.equal(mine.table, 1);
    assert.ok(has(mine, 'seat') && mine.seat === 0, 'seat 0, present');
    assert.equal(mine.rooms.length, 1, 'deal 1 has started');
    const [r] = mine.rooms;
    assert.deepEqual([r.deal, r.table], [1, 1]);
    assert.ok(r.room_id.length > 0 && r.seat_token.length > 0, 'a room and the seat token to play it');

    const room = (await S.room.GetRoom({ room_id: r.room_id })).room;
    assert.equal(room.room_id, r.room_id);
    assert.equal(room.seat_count, SEATS);
    assert.equal(room.options.rounds, 1, "the organiser's rounds");
    assert.equal(room.visibility, enumValue('hand.v1.RoomVisibility', 'ROOM_VISIBILITY_PRIVATE'));
    assert.equal(room.join_code, '', 'no join code without a seat');
    assert.equal(room.status, enumValue('hand.v1.RoomStatus', 'ROOM_STATUS_PLAYING'), 'deal 1 is being played');
    assert.deepEqual(room.seats.map((s) => [s.seat, s.kind, s.name]),
      [[0, enumValue('hand.v1.SeatKind', 'SEAT_KIND_HUMAN'), 'Ada'], [1, enumValue('hand.v1.SeatKind', 'SEAT_KIND_BOT'), room.seats[1].name]],
      'the player at seat 0, a bot at seat 1');
    assert.equal(room.seats[1].bot_level, enumValue('hand.v1.BotLevel', 'BOT_LEVEL_BEGINNER'), "the organiser's bot level");

    // The seat token opens the seat: Watch from the room's head, a snapshot with the player's view.
    const stream = reader(S.room.Watch({ room_id: r.room_id, seat_token: r.seat_token, from_seq: num(room.next_seq) }));
    try {
      const snap = await stream.next(10000);
      assert.equal(snap.message, 'snapshot');
      assert.ok(has(snap, 'view') && has(snap.view, 'seat') && snap.view.seat === 0, "the seat's own view");
      assert.ok(snap.view.hand.length > 0, 'the player sees its hand');
    } finally {
      stream.close();
    }
    await refused(S.tour.GetMyTable({ tournament_id: S.id }, as(null)), Code.UNAUTHENTICATED, 'UNAUTHENTICATED');
  });

  it('keeps results hidden and the close refused while deals are played; only the organiser closes', async () => {
    const hidden = await refused(S.tour.GetTournamentStandings({ tournament_id: S.id }, as(S.ada)),
      Code.FAILED_PRECONDITION, 'TOURNAMENT_RESULTS_HIDDEN');
    assert.equal(hidden.params.status, 'running', JSON.stringify(hidden.params));
    const notOrg = await refused(S.tour.CloseTournament({ tournament_id: S.id }, as(S.ada)),
      Code.PERMISSION_DENIED, 'TOURNAMENT_NOT_ORGANISER');
    assert.equal(notOrg.params.field, 'tournament_id');
    const seen = (await S.tour.GetTournament({ tournament_id: S.id }, as(null))).tournament;
    if (seen.deals_played < seen.deals_total) {
      const early = await refused(S.tour.CloseTournament({ tournament_id: S.id }, as(S.org)),
        Code.FAILED_PRECONDITION, 'TOURNAMENT_WRONG_STATE');
      assert.equal(early.params.status, 'running', JSON.stringify(early.params));
      assert.equal(early.params.deals_total, String(TABLES * DEALS), JSON.stringify(early.params));
      assert.ok(Number(early.params.deals_played) < TABLES * DEALS, JSON.stringify(early.params));
    }
  });

  it('plays every deal to its end (the player plays its seat from its Watch view), then the organiser closes it', { timeout: PLAY_TIMEOUT_MS + 10000 }, async (t) => {
    const [r] = S.table.rooms;
    const moves = await playSeat(r.room_id, r.seat_token, S.table.seat, PLAY_TIMEOUT_MS);
    t.diagnostic(`the player made ${moves} moves in room ${r.room_id}`);
    assert.ok(moves >= 1, 'the player moved with its seat token');
    const begun = Date.now();
    const deadline = begun + PLAY_TIMEOUT_MS;
    let seen = null;
    while (Date.now() < deadline) {
      seen = (await S.tour.GetTournament({ tournament_id: S.id }, as(null))).tournament;
      if (seen.deals_played === seen.deals_total) break;
      await sleep(500);
    }
    t.diagnostic(`${seen.deals_played}/${seen.deals_total} deals played in ${Date.now() - begun} ms`);
    assert.equal(seen.deals_played, TABLES * DEALS, 'every deal of every table is over');
    const mine = await S.tour.GetMyTable({ tournament_id: S.id }, as(S.ada));
    assert.ok(mine.rooms.every((x) => x.over), "the player's rooms are over");

    const closed = (await S.tour.CloseTournament({ tournament_id: S.id }, as(S.org))).tournament;
    assert.equal(closed.status, TStatus('CLOSED'));
    S.closed = true;
    const again = await refused(S.tour.CloseTournament({ tournament_id: S.id }, as(S.org)),
      Code.FAILED_PRECONDITION, 'TOURNAMENT_WRONG_STATE');
    assert.deepEqual([again.params.status, again.params.wanted], ['closed', 'running'], JSON.stringify(again.params));
  });

  it('shows the standings once closed: matchpoints against the same seat at the other table', { timeout: 30000 }, async (t) => {
    assert.ok(S.closed, 'the tournament was closed');
    const got = await S.tour.GetTournamentStandings({ tournament_id: S.id }, as(S.ada));
    assert.equal(got.tournament.status, TStatus('CLOSED'));

    // every table's room of every deal, without seat tokens
    assert.deepEqual(got.rooms.map((x) => [x.table, x.deal]).sort(), [[1, 1], [2, 1]]);
    assert.ok(got.rooms.every((x) => x.seat_token === '' && x.over && x.room_id), 'rooms without seat tokens, over');
    assert.equal(got.rooms.find((x) => x.table === 1).room_id, S.table.rooms[0].room_id);

    // raw scores: each seat's total of the fixed rounds, from the ledger's score sheets
    const raw = {};
    for (const x of got.rooms) {
      const sheet = (await S.ledger.GetScoreSheet({ room_id: x.room_id })).sheet;
      for (let seat = 0; seat < SEATS; seat++) {
        raw[`${x.table}/${x.deal}/${seat}`] = sheet.rounds.filter((rd) => !rd.playoff)
          .reduce((sum, rd) => sum + rd.lines.find((l) => l.seat === seat).score, 0);
      }
    }
    t.diagnostic(`raw scores (table/deal/seat): ${JSON.stringify(raw)}`);
    const mp = (score, others) => others.reduce((sum, o) => sum + (score < o ? 1 : score === o ? 0.5 : 0), 0);

    assert.equal(got.comparisons.length, DEALS * SEATS, 'one comparison per deal and seat position');
    for (const c of got.comparisons) {
      assert.ok(has(c, 'seat'), 'DealComparison.seat present (seat 0 included)');
      assert.deepEqual(c.results.map((x) => x.table), [1, 2], 'one line per table, in table order');
      for (const x of c.results) {
        const score = raw[`${x.table}/${c.deal}/${c.seat}`];
        const others = c.results.filter((o) => o.table !== x.table).map((o) => raw[`${o.table}/${c.deal}/${c.seat}`]);
        assert.equal(x.score, score, `deal ${c.deal} seat ${c.seat} table ${x.table}: the score sheet's total`);
        assert.equal(x.matchpoints, mp(score, others), '1 per table beaten, 1/2 per tie');
        assert.deepEqual([x.entrant.table, x.entrant.seat], [x.table, c.seat]);
      }
      assert.equal(c.results.reduce((s, x) => s + x.matchpoints, 0), 1, 'two tables share one matchpoint');
    }

    assert.equal(got.standings.length, TABLES * SEATS, 'one line per seat of every table');
    const key = (s) => `${s.entrant.table}/1/${s.entrant.seat}`;
    for (const s of got.standings) {
      const mate = got.comparisons.find((c) => c.seat === s.entrant.seat).results.find((x) => x.table === s.entrant.table);
      assert.equal(s.matchpoints, mate.matchpoints, 'standing matchpoints = the sum over deals');
      assert.equal(s.raw_total, raw[key(s)], 'raw_total = the sum of raw scores');
      const better = got.standings.filter((o) => o.matchpoints > s.matchpoints
        || (o.matchpoints === s.matchpoints && o.raw_total < s.raw_total));
      assert.equal(s.place, better.length + 1, 'place: 1 + the lines ahead (equal lines share a place)');
    }
    for (let i = 1; i < got.standings.length; i++) {
      const [a, b] = [got.standings[i - 1], got.standings[i]];
      assert.ok(a.matchpoints > b.matchpoints || (a.matchpoints === b.matchpoints && a.raw_total <= b.raw_total),
        'matchpoints higher first, then raw total lower first');
    }
    const you = got.standings.filter((s) => s.entrant.you);
    assert.equal(you.length, 1, 'the caller is marked you');
    assert.deepEqual([you[0].entrant.name, you[0].entrant.table, you[0].entrant.seat], ['Ada', 1, 0]);
    t.diagnostic(`standings: ${JSON.stringify(got.standings.map((s) => [s.place, s.entrant.name, s.entrant.table, s.entrant.seat, s.matchpoints, s.raw_total]))}`);
  });

  it("reads each table's room at the ledger once closed: a complete replay, an unverifiable (fixed) deal", { timeout: 30000 }, async () => {
    assert.ok(S.closed, 'the tournament was closed');
    const got = await S.tour.GetTournamentStandings({ tournament_id: S.id }, as(null));
    const decks = [];
    for (const x of got.rooms) {
      const replay = await S.ledger.GetReplay({ room_id: x.room_id, from_seq: 0 });
      assert.equal(replay.complete, true, `table ${x.table}: a finished room replays complete`);
      decks.push(replay.events.find((e) => e.event === 'round_dealt').round_dealt.deck);
      const verdict = await S.ledger.VerifyDeal({ room_id: x.room_id });
      assert.ok(verdict.rounds.length >= 1);
      assert.ok(verdict.rounds.every((rd) => rd.verdict === enumValue('hand.v1.DealVerdict', 'DEAL_VERDICT_UNVERIFIABLE')),
        'a tournament deal is fixed by the organiser: DEAL_VERDICT_UNVERIFIABLE (decision 0022)');
    }
    assert.deepEqual([...decks[1]], [...decks[0]], 'the same deal at every table');
  });
});
