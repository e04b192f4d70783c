'use strict';
// The conformance client: a bot-filled one-round match over gRPC, written
// from proto/ only, against running services. Addresses from the
// environment: HAND_ROOM_ADDR, HAND_RULES_ADDR, HAND_LEDGER_ADDR,
// KAFKA_BOOTSTRAP_SERVERS. Without them every test here is skipped, unless
// HAND_CONFORMANCE_REQUIRED=1 (then they fail).
//
//   node --test clients/conformance

const { describe, it, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { ErrorCode, refused, sleep } = require('./lib/refusals');
const crypto = require('node:crypto');

const hand = require('./lib/hand');
const cards = require('./lib/cards');
const walk = require('./lib/walk');
const { reader } = require('./lib/stream');
const { roomClient } = require('./lib/owner');

const { num, has, type, enumValue, enumName } = hand;
const { status: Code } = hand.grpc;

const ENV = {
  room: process.env.HAND_ROOM_ADDR,
  rules: process.env.HAND_RULES_ADDR,
  ledger: process.env.HAND_LEDGER_ADDR,
  kafka: process.env.KAFKA_BOOTSTRAP_SERVERS,
};
const AUTH_ADDR = process.env.HAND_AUTH_ADDR; // optional: sign in as a guest first
const missing = Object.entries(ENV).filter(([, v]) => !v).map(([k]) => k);
const required = process.env.HAND_CONFORMANCE_REQUIRED === '1';
const skip = missing.length > 0 && !required ? `no address for ${missing.join(', ')}` : false;

const SEATS = 3;
const PUBLIC_TOPIC = 'hand.room-events-public';
const PRIVATE_TOPIC = 'hand.room-events';
const MATCH_TIMEOUT_MS = Number(process.env.HAND_CONFORMANCE_MATCH_MS || 120000);

const WatchResponse = type('hand.v1.WatchResponse');
const RoomEvent = type('hand.v1.RoomEvent');

const actionId = () => crypto.randomUUID();


// ------------------------------------------------------------ shared state

const S = {
  room: null, // RoomService client
  ledger: null,
  rules: null,
  kafka: null, // { consumer, public: Map(seq → RoomEvent), private: [...], errors: [] }
  roomId: null,
  token: null,
  seat: null,
  joinCode: null,
  host: [], // every event of the host's streams, in order (RoomEvent)
  hostMessages: [], // every WatchResponse of the host's streams
  spectator: null, // { messages: [], events: [], done: Promise }
  scored: [], // RoundScored
  ended: null, // MatchEnded
  resumed: false,
  myMoves: 0,
  refusals: {},
};

function openKafka() {
  const { Kafka, logLevel } = require('kafkajs');
  const kafka = new Kafka({
    clientId: 'hand-conformance',
    brokers: ENV.kafka.split(','),
    logLevel: logLevel.NOTHING,
    retry: { retries: 10, initialRetryTime: 200 },
  });
  const consumer = kafka.consumer({
    groupId: `hand-conformance-${crypto.randomUUID()}`,
    sessionTimeout: 6000,
    rebalanceTimeout: 6000,
    heartbeatInterval: 500,
    maxWaitTimeInMs: 200,
  });
  const state = { consumer, records: { [PUBLIC_TOPIC]: [], [PRIVATE_TOPIC]: [] }, ready: null };
  state.ready = (async () => {
    await consumer.connect();
    await consumer.subscribe({ topics: [PUBLIC_TOPIC, PRIVATE_TOPIC], fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ topic, message }) => {
        state.records[topic].push({ key: message.key ? message.key.toString() : null, value: message.value });
      },
    });
  })();
  return state;
}

/**
 * Records of `topic` keyed by our room, decoded (every one must decode), one
 * per seq: delivery is at-least-once, so a consumer drops a seq it has seen
 * (a redelivery must be the same bytes).
 */
function roomRecords(topic) {
  const bySeq = new Map();
  for (const r of S.kafka.records[topic]) {
    if (r.key !== S.roomId) continue;
    const event = RoomEvent.decode(r.value);
    const seq = num(event.seq);
    const seen = bySeq.get(seq);
    if (seen) assert.ok(seen.value.equals(r.value), `${topic}: seq ${seq} redelivered with other bytes`);
    else bySeq.set(seq, { ...r, event });
  }
  return [...bySeq.values()].sort((a, b) => num(a.event.seq) - num(b.event.seq));
}

/** The room's records of `topic` once seqs 0..last are there (or the timeout). */
async function allRecords(topic, last, ms) {
  const deadline = Date.now() + ms;
  let recs = roomRecords(topic);
  while (recs.length < last + 1 && Date.now() < deadline) {
    await sleep(250);
    recs = roomRecords(topic);
  }
  return recs;
}

/** Check one message of the host's stream and fold it into the shared state. */
function hostMessage(msg, expect) {
  S.hostMessages.push(msg);
  if (expect.first) {
    assert.equal(msg.message, 'snapshot', 'the first Watch message is a snapshot');
    assert.equal(num(msg.snapshot.next_seq), expect.seq, 'snapshot.next_seq = from_seq');
    if (expect.seq === 0) {
      assert.ok(!has(msg, 'room'), 'snapshot at from_seq 0: room unset');
      assert.ok(!has(msg, 'view'), 'snapshot at from_seq 0: view unset');
    } else {
      assert.ok(has(msg, 'room'), 'snapshot at from_seq > 0: room set');
    }
  } else {
    assert.equal(msg.message, 'event', 'every later Watch message is an event');
    const ev = msg.event;
    assert.equal(num(ev.seq), expect.seq, 'events in order, each exactly once');
    assert.equal(ev.room_id, S.roomId);
    assert.ok(ev.event, `event ${expect.seq} has its oneof set`);
    S.host.push(ev);
    if (ev.event === 'round_scored') S.scored.push(ev.round_scored);
    if (ev.event === 'match_ended') S.ended = ev.match_ended;
    // The host's own stream: private to the host, yet no credentials.
    walk.eachMessage(RoomEvent, ev, (t, m, at) => {
      if (t.name === 'SeatTaken') {
        assert.equal(m.token_hash, '', `${at}: no token hash on a stream`);
        assert.equal(m.player_id, '', `${at}: player ids only on hand.room-events`);
      }
      if (t.name === 'RoundDealt') assert.equal(m.deck.length, 0, `${at}: no deck on a stream`);
      if (t.name === 'MatchStarted') assert.ok(!has(m, 'seed'), `${at}: no seed on a stream`);
      if (t.name === 'StockDrawn') {
        assert.ok(has(m, 'seat'), `${at}: StockDrawn.seat set`);
        assert.equal(has(m, 'card'), m.seat === S.seat, `${at}: a stock draw's card only for the drawer`);
      }
    });
  }
  if (has(msg, 'room')) {
    assert.equal(num(msg.room.next_seq), expect.first ? expect.seq : expect.seq + 1,
      'room.next_seq is the seq after this message');
    // the turn's deadline on the server's clock, and that clock (docs/clients.md, decision 0023)
    assert.ok(has(msg.room, 'server_time'), 'every Watch RoomInfo carries server_time');
    const running = msg.room.status === enumValue('hand.v1.RoomStatus', 'ROOM_STATUS_PLAYING')
      && has(msg, 'view') && !has(msg.view, 'result');
    assert.equal(has(msg.room, 'turn_deadline'), running, 'turn_deadline is set exactly while a turn runs');
    if (running) {
      const secs = (ts) => num(ts.seconds) + (ts.nanos || 0) / 1e9;
      assert.ok(secs(msg.room.turn_deadline) <= secs(msg.room.server_time) + msg.room.turn_seconds + 1,
        'the deadline is at most turn_seconds ahead');
    }
    checkSeating(msg.room);
  }
  if (has(msg, 'view')) {
    assert.ok(has(msg.view, 'seat') && msg.view.seat === S.seat, "the host's view is for its seat");
  }
  assert.deepEqual(walk.badCardIds(WatchResponse, msg), [], 'card ids 1..106');
}

/** How the table sits (decision 0030): every seat's next_seat; no team or partner when every seat plays
 * for itself; the round's dealer and first player (the seat after the dealer) once a round is dealt. */
function checkSeating(room) {
  const n = room.seats.length;
  for (const s of room.seats) {
    assert.ok(has(s, 'next_seat') && s.next_seat === (s.seat + 1) % n, 'RoomSeat.next_seat = seat + 1 mod n, 0 included');
    assert.ok(!has(s, 'team') && !has(s, 'partner'), 'no team or partner outside a partnership match');
  }
  assert.equal(has(room, 'dealer'), room.round_no > 0, 'RoomInfo.dealer set once a round is dealt');
  assert.equal(has(room, 'first_player'), room.round_no > 0, 'RoomInfo.first_player set once a round is dealt');
  if (room.round_no > 0) assert.equal(room.first_player, (room.dealer + 1) % n, 'the first player sits after the dealer');
}

function latest(field) {
  for (let i = S.hostMessages.length - 1; i >= 0; i--) {
    if (has(S.hostMessages[i], field)) return S.hostMessages[i][field];
  }
  return null;
}

function isMyTurn(view, room) {
  return view && room && room.status === enumValue('hand.v1.RoomStatus', 'ROOM_STATUS_PLAYING')
    && !has(view, 'result') && has(view, 'turn') && has(view.turn, 'seat') && view.turn.seat === S.seat;
}

/** The card to discard: the highest hand value, jokers kept. */
function choose(hand) {
  const naturals = hand.filter((c) => !cards.isJoker(c));
  const pool = naturals.length ? naturals : hand;
  return pool.reduce((best, c) => (cards.value(c) > cards.value(best) ? c : best), pool[0]);
}

/** Apply a move; refusals that a race with the timer or a bot explains are tolerated. */
async function act(action, expectedSeq, id = actionId()) {
  try {
    return await S.room.Act({ room_id: S.roomId, seat_token: S.token, action_id: id, action,
      expected_seq: expectedSeq });
  } catch (err) {
    const code = err.rule && err.rule.code;
    if (['STALE_ACTION', 'NOT_YOUR_TURN', 'WRONG_PHASE', 'ROUND_OVER', 'MATCH_NOT_STARTED']
      .map(ErrorCode).includes(code)) return null;
    throw err;
  }
}

/** Once per kind: the refusals of deliberately wrong moves, with their details. */
async function probeRefusals(view) {
  const R = S.refusals;
  const phase = enumName('hand.v1.TurnPhase', view.turn.phase);
  if (phase === 'TURN_PHASE_DRAW' && !R.wrongPhase) {
    R.wrongPhaseId = actionId();
    R.wrongPhase = await refused(S.room.Act({ room_id: S.roomId, seat_token: S.token,
      action_id: R.wrongPhaseId, action: { discard: { card: view.hand[0] } } }),
    Code.FAILED_PRECONDITION, 'WRONG_PHASE');
  }
  if (phase === 'TURN_PHASE_PLAY' && !R.notInHand) {
    const absent = [...Array(104).keys()].map((i) => i + 1).find((c) => !view.hand.includes(c));
    R.notInHand = await refused(S.room.Act({ room_id: S.roomId, seat_token: S.token,
      action_id: actionId(), action: { discard: { card: absent } } }),
    Code.FAILED_PRECONDITION, 'CARD_NOT_IN_HAND');
    R.notInHandCard = absent;
    R.unknownCard = await refused(S.room.Act({ room_id: S.roomId, seat_token: S.token,
      action_id: actionId(), action: { discard: { card: 107 } } }),
    Code.INVALID_ARGUMENT, 'UNKNOWN_CARD');
    const future = num(latest('room').next_seq) + 100000;
    R.futureSeq = await refused(S.room.Act({ room_id: S.roomId, seat_token: S.token,
      action_id: actionId(), action: { discard: { card: view.hand[0] } }, expected_seq: future }),
    Code.OUT_OF_RANGE, 'SEQ_OUT_OF_RANGE');
  }
}

/** One step of the host's turn: draw from the stock, or discard. */
async function playStep(view, room) {
  await probeRefusals(view);
  const expected = num(room.next_seq);
  const phase = enumName('hand.v1.TurnPhase', view.turn.phase);
  if (phase === 'TURN_PHASE_DRAW') {
    // The first draw reuses the id of the refused early discard: a refused move binds nothing.
    const reuse = S.refusals.wrongPhaseId && !S.refusals.retry;
    const id = reuse ? S.refusals.wrongPhaseId : actionId();
    const first = await act({ draw_stock: {} }, expected, id);
    if (first && !S.refusals.retry) {
      // A retry with the same action id is the same move: same seqs, flagged duplicate.
      const again = await S.room.Act({ room_id: S.roomId, seat_token: S.token, action_id: id,
        action: { draw_stock: {} }, expected_seq: expected });
      S.refusals.retry = { first, again };
      S.refusals.reused = await refused(S.room.Act({ room_id: S.roomId, seat_token: S.token,
        action_id: id, action: { discard: { card: view.hand[0] } } }),
      Code.INVALID_ARGUMENT, 'ACTION_ID_REUSED');
    }
    return first;
  }
  if (phase === 'TURN_PHASE_PLAY') {
    if (has(view.turn, 'drawn')) {
      assert.ok(view.hand.includes(view.turn.drawn), 'the drawn card is in the hand');
    }
    const res = await act({ discard: { card: choose(view.hand) } }, expected);
    if (res) S.myMoves += 1;
    return res;
  }
  throw new Error(`unexpected turn phase ${phase}`);
}

// ------------------------------------------------------------------- tests

describe('conformance: a bot-filled match through the public contract', { skip }, () => {
  before(async () => {
    S.room = roomClient(ENV.room); // Act and Watch at the room's owner (lib/owner.js)
    S.ledger = hand.connect('hand.v1.LedgerService', ENV.ledger);
    S.rules = hand.connect('hand.v1.RulesService', ENV.rules);
    S.kafka = openKafka(); // joins its group while the match is played
    if (AUTH_ADDR) S.auth = hand.connect('hand.v1.AuthService', AUTH_ADDR);
  });

  after(async () => {
    if (S.spectator) S.spectator.reader.close();
    if (S.kafka) await S.kafka.consumer.disconnect().catch(() => {});
    for (const c of [S.room, S.ledger, S.rules, S.auth]) if (c) c.close();
  });

  it('signs in as a guest and sends the session token on every call', { skip: !AUTH_ADDR && 'no HAND_AUTH_ADDR' }, async () => {
    const device = crypto.randomBytes(24).toString('hex');
    const signed = await S.auth.SignInGuest({ device_id: device, display_name: 'Conformance' });
    assert.equal(signed.created, true);
    assert.match(signed.player.player_id, /^[0-9a-f]{32}$/, 'a backend-issued player id');
    assert.ok(signed.session.access_token.split('.').length === 3, 'the session token is a JWT');
    assert.ok(num(signed.session.access_expires_at_ms) > Date.now());
    const again = await S.auth.SignInGuest({ device_id: device });
    assert.equal(again.created, false);
    assert.equal(again.player.player_id, signed.player.player_id, 'the same device is the same player');
    assert.notEqual(again.session.access_token, signed.session.access_token, 'every session token is distinct');
    const me = await S.auth.GetMe({}, { token: signed.session.access_token });
    assert.equal(me.player.player_id, signed.player.player_id);
    await refused(S.auth.GetMe({}), Code.UNAUTHENTICATED, 'UNAUTHENTICATED');
    const next = await S.auth.RefreshSession({ refresh_token: signed.session.refresh_token });
    assert.notEqual(next.session.refresh_token, signed.session.refresh_token, 'a refresh token is single use');
    await refused(S.room.CreateRoom({ player_name: 'x' }, { token: 'not.a.jwt' }), Code.UNAUTHENTICATED, 'UNAUTHENTICATED');
    // A spent refresh token sent again revokes every session of its player (another device's
    // player here, so that this run's session stays usable): each sign-in's refresh token.
    const thief = crypto.randomBytes(24).toString('hex');
    const one = await S.auth.SignInGuest({ device_id: thief });
    const two = await S.auth.SignInGuest({ device_id: thief });
    const spent = await S.auth.RefreshSession({ refresh_token: one.session.refresh_token });
    const reuse = await refused(S.auth.RefreshSession({ refresh_token: one.session.refresh_token }),
      Code.UNAUTHENTICATED, 'UNAUTHENTICATED');
    assert.deepEqual({ ...reuse.params }, { field: 'refresh_token', reason: 'reused' });
    for (const revoked of [spent.session.refresh_token, two.session.refresh_token]) {
      await refused(S.auth.RefreshSession({ refresh_token: revoked }), Code.UNAUTHENTICATED, 'UNAUTHENTICATED');
    }
    S.playerId = signed.player.player_id;
    S.session = next.session;
    S.room.token = S.ledger.token = S.rules.token = next.session.access_token;
  });

  it('refuses a bad option with RuleError details naming the option (en and ar)', async (t) => {
    const bad = { rounds: 2, seat_count: SEATS, player_name: 'bad', player_id: 'conformance-bad' };
    const en = await refused(S.room.CreateRoom(bad), Code.INVALID_ARGUMENT, 'INVALID_OPTIONS');
    const named = Object.values(en.params);
    assert.ok(named.some((v) => v === 'rounds' || v.endsWith('.rounds')),
      `params name the option: ${JSON.stringify(en.params)}`);
    assert.ok(['allowed', 'min', 'max'].some((k) => k in en.params), `params give the limit: ${JSON.stringify(en.params)}`);
    const ar = await refused(S.room.CreateRoom(bad, { lang: 'ar' }), Code.INVALID_ARGUMENT, 'INVALID_OPTIONS');
    assert.match(ar.message, /[\u0600-\u06FF]/, `an Arabic message for accept-language: ar (${ar.message})`);
    assert.notEqual(ar.message, en.message);
    assert.deepEqual(ar.params, en.params, 'params do not depend on the language');
    t.diagnostic(`rounds 2: ${JSON.stringify(en.params)} "${en.message}" / "${ar.message}"`);
  });

  it('creates a room, fills it with bots and starts a one-round match', async () => {
    const created = await S.room.CreateRoom({
      rules: { preset: 'hand', overrides: { rounds: 1 } }, rounds: 1, seat_count: SEATS,
      visibility: 'ROOM_VISIBILITY_PRIVATE', turn_seconds: 30,
      player_name: 'Conformance', player_id: S.playerId || `conformance-${crypto.randomUUID()}`,
    });
    assert.ok(has(created, 'seat'), 'CreateRoomResponse.seat is present (explicit presence)');
    assert.equal(created.seat, 0, 'the host takes seat 0');
    assert.ok(created.seat_token.length > 0);
    S.roomId = created.room.room_id;
    S.token = created.seat_token;
    S.seat = created.seat;
    S.joinCode = created.room.join_code;
    assert.ok(S.joinCode.length > 0, 'the host gets the join code');
    assert.equal(created.room.options.rounds, 1, 'rounds: 1');
    assert.equal(created.room.host_seat, 0);

    // The host's stream from the start, and a spectator's.
    S.hostStream = reader(S.room.Watch({ room_id: S.roomId, seat_token: S.token, from_seq: 0 }));
    hostMessage(await S.hostStream.next(), { first: true, seq: 0 });
    S.spectator = { reader: reader(S.room.Watch({ room_id: S.roomId, from_seq: 0 })), messages: [] };
    S.spectator.done = (async () => {
      for (;;) {
        const m = await S.spectator.reader.next(MATCH_TIMEOUT_MS);
        S.spectator.messages.push(m);
        if (m.message === 'event' && m.event.event === 'match_ended') return;
      }
    })();
    S.spectator.done.catch(() => {});

    // A spectator's GetRoom has no join code.
    const seen = await S.room.GetRoom({ room_id: S.roomId });
    assert.equal(seen.room.join_code, '', 'GetRoom without a seat: no join code');

    const filled = await S.room.FillWithBots({ room_id: S.roomId, seat_token: S.token,
      level: 'BOT_LEVEL_STRONG' });
    assert.equal(filled.room.seats.length, SEATS);
    for (const seat of filled.room.seats) assert.ok(has(seat, 'seat'), 'RoomSeat.seat present, 0 included');
    assert.deepEqual(filled.room.seats.map((s) => s.seat), [...Array(SEATS).keys()]);
    await refused(S.room.StartMatch({ room_id: S.roomId, seat_token: 'not-a-token' }),
      Code.PERMISSION_DENIED, 'SEAT_TOKEN_INVALID');
    // A 64-bit seed beyond 2^53 (sent as a decimal string).
    const started = await S.room.StartMatch({ room_id: S.roomId, seat_token: S.token,
      seed: '18446744073709551557' });
    assert.equal(started.room.status, enumValue('hand.v1.RoomStatus', 'ROOM_STATUS_PLAYING'));
  });

  it('sends a quick-chat phrase that the spectator stream receives as chat_sent; an unknown phrase is refused', async () => {
    const sent = await S.room.Chat({ room_id: S.roomId, seat_token: S.token, phrase: 'QUICK_PHRASE_GOOD_LUCK' });
    const seq = num(sent.seq);
    const deadline = Date.now() + 10000;
    let got = null;
    while (!got && Date.now() < deadline) {
      got = S.spectator.messages.find((m) => m.message === 'event' && num(m.event.seq) === seq);
      if (!got) await sleep(50);
    }
    assert.ok(got, `the spectator's stream carries seq ${seq}`);
    assert.equal(got.event.event, 'chat_sent', 'a chat is a typed room event');
    assert.equal(got.event.chat_sent.phrase, enumValue('hand.v1.QuickPhrase', 'QUICK_PHRASE_GOOD_LUCK'));
    assert.ok(has(got.event.chat_sent, 'seat') && got.event.chat_sent.seat === S.seat, 'the sender\'s seat, 0 included');
    const rule = await refused(S.room.Chat({ room_id: S.roomId, seat_token: S.token, phrase: 999 }),
      Code.INVALID_ARGUMENT, 'UNKNOWN_PHRASE');
    assert.equal(rule.params.field, 'phrase');
  });

  it('comes back with ComeBack: a seat that is not away is left as it is; a bad token is refused', async () => {
    const same = await S.room.ComeBack({ room_id: S.roomId, seat_token: S.token });
    assert.equal(same.came_back, false, 'the host is not away: nothing to take back');
    assert.equal(same.room.seats[S.seat].away, false);
    checkSeating(same.room);
    await refused(S.room.ComeBack({ room_id: S.roomId, seat_token: 'not-a-token' }),
      Code.PERMISSION_DENIED, 'SEAT_TOKEN_INVALID');
  });

  it('names the field and the limit of malformed requests', async (t) => {
    // seat_count: a player count the options refuse (INVALID_OPTIONS, like every player count)
    const seats = await refused(S.room.CreateRoom({ seat_count: 6, player_name: 'x' }), Code.INVALID_ARGUMENT,
      'INVALID_OPTIONS');
    assert.equal(seats.params.field, 'seat_count', JSON.stringify(seats.params));
    assert.ok(['min', 'max'].every((k) => k in seats.params), JSON.stringify(seats.params));
    const cases = [
      ['turn_seconds', () => S.room.CreateRoom({ turn_seconds: 100000, player_name: 'x' }), true],
      ['room_id', () => S.room.GetRoom({ room_id: '' }), false],
      ['action_id', () => S.room.Act({ room_id: S.roomId, seat_token: S.token, action: { draw_stock: {} } }), false],
      ['action', () => S.room.Act({ room_id: S.roomId, seat_token: S.token, action_id: actionId() }), false],
    ];
    for (const [field, call, limit] of cases) {
      const rule = await refused(call(), Code.INVALID_ARGUMENT, 'INVALID_ARGUMENT');
      t.diagnostic(`${field}: ${JSON.stringify(rule.params)} "${rule.message}"`);
      assert.equal(rule.params.field, field, JSON.stringify(rule.params));
      if (limit) assert.ok(['allowed', 'min', 'max'].some((k) => k in rule.params), JSON.stringify(rule.params));
    }
  });

  it('joins by a join code in any case, refuses unknown rooms and bad tokens', async () => {
    // Public: a private room is joined by its code only (RoomVisibility's comment says "by id or join code").
    const other = await S.room.CreateRoom({ rounds: 1, seat_count: 2, player_name: 'Host', player_id: 'conformance-h',
      visibility: 'ROOM_VISIBILITY_PUBLIC' });
    const code = other.room.join_code;
    assert.match(code, /^[ABCDEFGHJKLMNPQRSTUVWXYZ23456789]{6}$/, 'a join code of 6 of the documented letters');
    const secret = await S.room.CreateRoom({ rounds: 1, seat_count: 2, player_name: 'Host', player_id: 'conformance-p' });
    await refused(S.room.JoinRoom({ room_id: secret.room.room_id, player_name: 'Guest' }),
      Code.PERMISSION_DENIED, 'JOIN_CODE_REQUIRED'); // a private room is joined by its code only
    const joined = await S.room.JoinRoom({ join_code: code.toLowerCase(), player_name: 'Guest', player_id: 'conformance-g' });
    assert.ok(has(joined, 'seat') && joined.seat === 1, 'the guest takes seat 1');
    assert.equal(joined.room.room_id, other.room.room_id);
    assert.equal(joined.room.join_code, code, 'a seated player gets the join code');
    await refused(S.room.JoinRoom({ room_id: other.room.room_id, player_name: 'Third' }),
      Code.FAILED_PRECONDITION, 'ROOM_FULL');
    await refused(S.room.GetRoom({ room_id: 'no-such-room' }), Code.NOT_FOUND, 'ROOM_NOT_FOUND');
    const bad = reader(S.room.Watch({ room_id: other.room.room_id, seat_token: 'not-a-token' }));
    const err = await bad.next(10000).then(() => null, (e) => e);
    assert.ok(err && err.rule, 'a Watch with a bad token fails with details');
    assert.equal(err.code, Code.PERMISSION_DENIED);
    assert.equal(err.rule.code, ErrorCode('SEAT_TOKEN_INVALID'));
    await refused(S.ledger.GetMatchResult({ room_id: 'no-such-room' }), Code.NOT_FOUND, 'ROOM_NOT_FOUND');
  });

  it("plays the host's turns from its Watch view, resuming the stream once", { timeout: MATCH_TIMEOUT_MS }, async (t) => {
    let stream = S.hostStream;
    const deadline = Date.now() + MATCH_TIMEOUT_MS;
    while (!S.ended) {
      assert.ok(Date.now() < deadline, 'the match ends in time');
      hostMessage(await stream.next(60000), { seq: S.host.length });
      if (stream.pending() > 0 || S.ended) continue; // catch up before deciding
      const view = latest('view');
      const room = latest('room');
      if (isMyTurn(view, room)) await playStep(view, room);
      if (!S.resumed && S.myMoves >= 1) {
        // Close the stream on purpose, then resume from the last seq seen + 1.
        stream.close();
        const next = S.host.length;
        const tooFar = reader(S.room.Watch({ room_id: S.roomId, seat_token: S.token, from_seq: next + 100000 }));
        const err = await tooFar.next(10000).then(() => null, (e) => e);
        assert.ok(err && err.rule, 'Watch past the end fails with details');
        assert.equal(err.code, Code.OUT_OF_RANGE);
        assert.equal(err.rule.code, ErrorCode('SEQ_OUT_OF_RANGE'));
        assert.equal(err.rule.params.from_seq, String(next + 100000), JSON.stringify(err.rule.params));
        assert.ok(Number(err.rule.params.next_seq) >= next, JSON.stringify(err.rule.params));
        stream = reader(S.room.Watch({ room_id: S.roomId, seat_token: S.token, from_seq: next }));
        const snap = await stream.next(10000);
        hostMessage(snap, { first: true, seq: next });
        assert.ok(has(snap, 'view'), 'a snapshot after the deal carries the view');
        S.resumed = true;
      }
    }
    stream.close();
    const kinds = {};
    for (const e of S.host) kinds[e.event] = (kinds[e.event] || 0) + 1;
    t.diagnostic(`room ${S.roomId}: ${S.host.length} events ${JSON.stringify(kinds)}, host discards ${S.myMoves}`);
    assert.ok(S.resumed, 'the stream was resumed once');
    assert.ok(S.myMoves >= 1, 'the host discarded at least once');
    assert.deepEqual(S.host.map((e) => num(e.seq)), [...Array(S.host.length).keys()], 'seqs 0..N, no gap, no repeat');
    assert.equal(S.host[0].event, 'room_created');
    assert.equal(S.host[0].room_created.join_code, S.joinCode, 'the host sees the join code');
    assert.equal(S.host.at(-1).event, 'match_ended');
    assert.ok(S.scored.length >= 1, 'a round was scored');
    for (const k of ['seat_taken', 'match_started', 'round_dealt', 'move_made', 'round_scored']) {
      assert.ok(kinds[k] > 0, `the stream carried ${k}`);
    }
    const dealt = S.host.find((e) => e.event === 'round_dealt').round_dealt;
    assert.ok(dealt.events.some((e) => e.event === 'round_started'), 'round_dealt carries round_started');
    assert.ok(dealt.events.some((e) => e.event === 'turn_started'), 'round_dealt carries turn_started');
    const mine = S.host.filter((e) => e.event === 'move_made' && e.move_made.seat === S.seat
      && e.move_made.origin === enumValue('hand.v1.MoveOrigin', 'MOVE_ORIGIN_PLAYER'));
    assert.ok(mine.length >= 2, 'the host drew and discarded as a player');
  });

  it('gives refusals their RuleError code and params', (t) => {
    const R = S.refusals;
    for (const [k, v] of Object.entries(R)) {
      if (v && v.code) t.diagnostic(`${k}: ${v.code} ${JSON.stringify(v.params)} "${v.message}"`);
    }
    assert.ok(R.wrongPhase, 'a discard before the draw was tried');
    assert.ok(R.notInHand, 'a discard of a card not in hand was tried');
    assert.ok(R.unknownCard, 'a card id outside 1..106 was refused');
    assert.equal(R.unknownCard.params.field, 'action.discard.card', JSON.stringify(R.unknownCard.params));
    assert.ok(R.futureSeq, 'an expected_seq past the end was refused');
    assert.equal(R.futureSeq.params.field, 'expected_seq', JSON.stringify(R.futureSeq.params));
    assert.equal(R.reused.params.field, 'action_id', JSON.stringify(R.reused.params));
    assert.ok(R.retry, 'an action was retried');
    const { first, again } = R.retry;
    assert.equal(again.duplicate, true, 'the retry is flagged duplicate');
    assert.equal(first.duplicate, false);
    assert.equal(num(again.first_seq), num(first.first_seq), 'same first_seq');
    assert.equal(num(again.last_seq), num(first.last_seq), 'same last_seq');
    assert.ok(R.reused, 'an action id reused for another move is refused');
  });

  it('names a card not in hand in card text (CARD_NOT_IN_HAND params.card)', () => {
    const R = S.refusals;
    assert.ok(R.notInHand);
    assert.equal(R.notInHand.params.card, cards.text(R.notInHandCard),
      `CARD_NOT_IN_HAND names the card in card text: ${JSON.stringify(R.notInHand.params)}`);
    assert.match(R.notInHand.message, new RegExp(`\\b${cards.text(R.notInHandCard)}\\b`));
  });

  it('shows a spectator no hidden card, seed, deck or credential', { timeout: 30000 }, async () => {
    await S.spectator.done;
    const msgs = S.spectator.messages;
    assert.equal(msgs[0].message, 'snapshot');
    const events = msgs.slice(1).map((m) => m.event);
    assert.deepEqual(events.map((e) => num(e.seq)), S.host.map((e) => num(e.seq)), 'the same seqs as the host');
    assert.deepEqual(events.map((e) => e.event), S.host.map((e) => e.event), 'the same kinds per seq');
    for (const m of msgs) {
      assert.deepEqual(walk.secretsIn(WatchResponse, m), [], `spectator message ${m.message} leaks`);
      assert.deepEqual(walk.badCardIds(WatchResponse, m), []);
      if (has(m, 'view')) {
        assert.equal(m.view.hand.length, 0, 'a spectator sees no hand');
        assert.ok(!has(m.view, 'seat'), "a spectator's view has no seat");
      }
    }
  });

  it('publishes every event on hand.room-events-public, spectator-safe and in order', { timeout: 60000 }, async () => {
    await S.kafka.ready;
    const last = num(S.host.at(-1).seq);
    const recs = await allRecords(PUBLIC_TOPIC, last, 45000);
    assert.deepEqual(recs.map((r) => num(r.event.seq)), [...Array(last + 1).keys()],
      'seqs 0..N without gap');
    recs.forEach((r, i) => {
      const ev = r.event;
      assert.equal(ev.room_id, S.roomId, 'value room_id = key');
      assert.ok(ev.event, `record ${i} has its oneof set`);
      assert.equal(ev.event, S.host[i].event, `seq ${i}: the same event as Watch`);
      assert.deepEqual(walk.secretsIn(RoomEvent, ev), [], `seq ${i} (${ev.event}) leaks`);
      assert.deepEqual(walk.badCardIds(RoomEvent, ev), [], `seq ${i}: card ids 1..106`);
      assert.ok(has(ev, 'at'), `seq ${i}: at is set`);
    });
  });

  it('keeps seat credentials off the private topic hand.room-events', { timeout: 60000 }, async () => {
    const last = num(S.host.at(-1).seq);
    const recs = await allRecords(PRIVATE_TOPIC, last, 30000);
    assert.deepEqual(recs.map((r) => num(r.event.seq)), [...Array(last + 1).keys()]);
    for (const r of recs) {
      assert.ok(r.event.event);
      walk.eachMessage(RoomEvent, r.event, (t, m, at) => {
        if (t.name === 'SeatTaken') assert.equal(m.token_hash, '', `${at}: no token hash on a topic`);
      });
      assert.deepEqual(walk.badCardIds(RoomEvent, r.event), []);
    }
    const dealt = recs.find((r) => r.event.event === 'round_dealt').event.round_dealt;
    assert.equal(dealt.deck.length, 106, 'the private topic carries the deal (for the ledger)');
    assert.deepEqual([...dealt.deck].sort((a, b) => a - b), [...Array(106).keys()].map((i) => i + 1),
      'the deal is every card id 1..106 once');
  });

  it("keeps the ledger's totals equal to the stream's scores", { timeout: 60000 }, async () => {
    // read your writes: the ledger answers once it holds the stream's last event (min_seq), waiting
    // for it a bounded time; LEDGER_BEHIND (UNAVAILABLE) is retried after retry_after_ms
    const lastSeq = num(S.host.at(-1).seq);
    const deadline = Date.now() + 45000;
    let result = null;
    while (Date.now() < deadline) {
      try {
        result = (await S.ledger.GetMatchResult({ room_id: S.roomId, min_seq: lastSeq })).result;
        break;
      } catch (err) {
        if (!(err.rule && err.rule.code === ErrorCode('LEDGER_BEHIND'))) throw err;
        assert.equal(err.code, Code.UNAVAILABLE);
        await sleep(Number(err.rule.params.retry_after_ms));
      }
    }
    assert.ok(result && result.over, 'the ledger has the finished match');
    const totals = (standings) => Object.fromEntries(standings.map((s) => {
      assert.ok(has(s, 'unit'), 'a standing names its unit (explicit presence)');
      return [s.unit, s.total];
    }));
    assert.deepEqual(totals(result.standings), totals(S.ended.standings), 'GetMatchResult totals = match_ended');
    assert.deepEqual([...result.winners].sort(), [...S.ended.winners].sort(), 'the same winners');
    assert.equal(result.human_left, false, 'nobody left the match (decision 0027)');
    assert.deepEqual([...result.left_seats], []);

    const sheet = (await S.ledger.GetScoreSheet({ room_id: S.roomId, min_seq: lastSeq })).sheet;
    assert.equal(sheet.rounds.length, S.scored.length, 'one score-sheet round per round_scored');
    if (S.playerId) { // docs/privacy.md: an account id only to its owner, a public handle for all
      assert.equal(sheet.seats[0].player_id, S.playerId, 'the signed-in host sees its own account id');
      assert.match(sheet.seats[0].handle, /^h-[a-z2-7]{26}$/, 'and its public handle');
      const anon = (await S.ledger.GetScoreSheet({ room_id: S.roomId }, { token: null })).sheet;
      assert.equal(anon.seats[0].player_id, '', 'nobody else sees the account id');
      assert.equal(anon.seats[0].handle, sheet.seats[0].handle, 'everyone sees the same handle');
      const byHandle = (await S.ledger.GetPlayerStats({ handle: anon.seats[0].handle }, { token: null })).stats;
      assert.equal(byHandle.player_id, '', 'statistics by handle name no account');
      await refused(S.ledger.GetPlayerStats({ player_id: S.playerId }, { token: null }),
        Code.PERMISSION_DENIED, 'PLAYER_ID_PRIVATE');
    }
    sheet.rounds.forEach((round, i) => {
      const streamed = S.scored[i];
      assert.equal(round.round_no, streamed.round_no);
      const scores = Object.fromEntries(streamed.result.seats.map((s) => [s.seat, s.score]));
      for (const line of round.lines) {
        assert.ok(has(line, 'seat'));
        assert.equal(line.score, scores[line.seat], `round ${round.round_no} seat ${line.seat}`);
      }
      assert.deepEqual(walk.badCardIds(type('hand.v1.ScoreRound'), round), []);
    });
    const running = {};
    for (const line of sheet.rounds.at(-1).lines) running[line.seat] = line.running_total;
    assert.deepEqual(running, totals(S.ended.standings), 'running totals = match_ended totals');

    const replay = await S.ledger.GetReplay({ room_id: S.roomId, from_seq: 0 });
    assert.equal(replay.complete, true, 'a finished match replays complete');
    assert.deepEqual(replay.events.map((e) => e.event), S.host.map((e) => e.event).filter((k) => k !== 'chat_sent'),
      'GetReplay carries the same events per seq as Watch, quick chat left out');
    assert.equal(num(replay.event_count), S.host.length, 'event_count counts every archived seq, chat included');
    const dealtAll = replay.events.find((e) => e.event === 'round_dealt').round_dealt;
    assert.equal(dealtAll.deck.length, 106, 'a finished replay is complete: the deal');
    assert.ok(has(replay.events.find((e) => e.event === 'match_started').match_started, 'seed'), '… and the seed');
    assert.ok(has(replay, 'position'), '… and the position');
    const asSeat1 = await S.ledger.GetReplay({ room_id: S.roomId, from_seq: 0, seat: 1 });
    assert.ok(has(asSeat1, 'seat') && asSeat1.seat === 1 && asSeat1.view.seat === 1, 'any seat view once over');
    assert.deepEqual(walk.badCardIds(type('hand.v1.GetReplayResponse'), asSeat1), [], 'replay card ids 1..106');
  });

  it('watches a finished room from its head: a snapshot, then nothing', { timeout: 20000 }, async () => {
    const head = num(S.host.at(-1).seq) + 1;
    const stream = reader(S.room.Watch({ room_id: S.roomId, from_seq: head }));
    try {
      const snap = await stream.next(10000);
      assert.equal(snap.message, 'snapshot');
      assert.equal(num(snap.snapshot.next_seq), head);
      assert.ok(has(snap, 'room'), 'the snapshot at the head carries the room');
      assert.equal(snap.room.status, enumValue('hand.v1.RoomStatus', 'ROOM_STATUS_FINISHED'));
      assert.deepEqual(walk.secretsIn(WatchResponse, snap), [], 'a spectator snapshot leaks nothing');
      const more = await stream.next(1500).then((m) => m, () => null);
      assert.equal(more, null, 'nothing follows match_ended');
    } finally {
      stream.close();
    }
  });

  it("reads the signed-in player's statistics from the session", { skip: !AUTH_ADDR && 'no HAND_AUTH_ADDR', timeout: 30000 }, async () => {
    await refused(S.ledger.GetPlayerStats({}, { token: null }), Code.UNAUTHENTICATED, 'UNAUTHENTICATED');
    const deadline = Date.now() + 20000;
    let stats = null;
    while (Date.now() < deadline) {
      try {
        stats = (await S.ledger.GetPlayerStats({})).stats;
        if (stats.matches >= 1) break;
      } catch (err) {
        if (!(err.rule && err.rule.code === ErrorCode('PLAYER_NOT_FOUND'))) throw err;
      }
      await sleep(300);
    }
    assert.ok(stats, 'the ledger knows the signed-in player');
    assert.equal(stats.player_id, S.playerId, 'the player comes from the session token');
    assert.equal(stats.matches, 1, 'one finished match');
  });

  it('never sends card id 0 (or beyond 106) in anything received', () => {
    for (const m of [...S.hostMessages, ...S.spectator.messages]) {
      assert.deepEqual(walk.badCardIds(WatchResponse, m), []);
    }
    const seen = new Set();
    for (const m of S.hostMessages) {
      if (has(m, 'view')) for (const c of m.view.hand) seen.add(c);
    }
    assert.ok(seen.size > 0 && [...seen].every(cards.isCard), 'hand card ids are 1..106');
  });

  it('verifies a provably fair deal itself, from the revealed seeds (decisions 0022, 0034, 0035)', { timeout: MATCH_TIMEOUT_MS }, async () => {
    const deal = require('./lib/deal');
    const created = await S.room.CreateRoom({
      rules: { preset: 'hand', overrides: { rounds: 1 } }, rounds: 1, seat_count: 2, turn_seconds: 30,
      visibility: 'ROOM_VISIBILITY_PRIVATE', player_name: 'Fair',
      player_id: S.playerId || `conformance-${crypto.randomUUID()}`,
    });
    const roomId = created.room.room_id;
    await S.room.FillWithBots({ room_id: roomId, seat_token: created.seat_token, level: 'BOT_LEVEL_BEGINNER' });
    // no match seed: fair deals; the host's own seat seed given now, after room_created's commitment (0035)
    await S.room.StartMatch({ room_id: roomId, seat_token: created.seat_token, seat_seed: 'conformance-seed' });
    await S.room.LeaveRoom({ room_id: roomId, seat_token: created.seat_token }); // a bot plays the host's seat
    const deadline = Date.now() + MATCH_TIMEOUT_MS - 10000;
    let replay = null;
    while (Date.now() < deadline) {
      try {
        replay = await S.ledger.GetReplay({ room_id: roomId, from_seq: 0 });
        if (replay.complete) break;
      } catch (e) { if (e.code !== Code.NOT_FOUND) throw e; }
      await sleep(300);
    }
    assert.ok(replay && replay.complete, 'the fair match finished and reached the ledger');
    const seats = replay.events.filter((e) => e.event === 'seat_taken').map((e) => e.seat_taken);
    const matchStarted = replay.events.find((e) => e.event === 'match_started').match_started;
    assert.equal(matchStarted.starter_seat, 0);
    assert.equal(matchStarted.starter_seat_seed, 'conformance-seed', 'the host seat seed given at the start is recorded');
    // version 2: room_created (seq 0, before any seat_taken) committed to the match secret that
    // match_ended reveals; every round's server seed and the bot's seat seed derive from it
    assert.equal(replay.events[0].event, 'room_created');
    const ended = replay.events.find((e) => e.event === 'match_ended').match_ended;
    const secret = ended.match_secret;
    assert.deepEqual(Buffer.from(deal.commitment(secret)), Buffer.from(replay.events[0].room_created.deal_commitment),
      'SHA-256(revealed match secret) = room_created.deal_commitment');
    assert.equal(seats.find((s) => s.seat === 1).seat_seed, deal.drawnSeatSeed(secret, 1), "the bot's seed is the secret's");
    assert.equal(seats.find((s) => s.seat === 0).seat_seed, deal.drawnSeatSeed(secret, 0),
      "the host's seed until the start: the secret's (it sent none with CreateRoom)");
    let round = null;
    let rounds = 0;
    for (const ev of replay.events) {
      if (ev.event === 'round_dealt') {
        const dealt = ev.round_dealt;
        const started = dealt.events.find((e) => e.event === 'round_started').round_started;
        assert.equal(started.deal_version, 2, 'round_started.deal_version');
        assert.deepEqual(started.seat_seeds.slice(0, 1), ['conformance-seed']);
        round = { dealt, started };
      } else if (ev.event === 'move_made' && round) {
        for (const e of ev.move_made.events) if (e.event === 'stock_rebuilt') {
          const key = deal.dealKey(round.dealt.server_seed, round.started.seat_seeds, round.dealt.round_no, 2, 2);
          const r = e.stock_rebuilt;
          assert.deepEqual(deal.rebuild(key, r.order, r.rebuild_no), [...r.order], `rebuild ${r.rebuild_no} recomputed`);
        }
      } else if (ev.event === 'round_scored' && round) {
        const seed = ev.round_scored.server_seed;
        assert.deepEqual(Buffer.from(deal.commitment(seed)), Buffer.from(round.started.commitment),
          'SHA-256(revealed server seed) = the commitment');
        assert.deepEqual(Buffer.from(seed), Buffer.from(round.dealt.server_seed));
        assert.deepEqual(Buffer.from(seed), deal.roundSeed(secret, round.dealt.round_no), 'the round seed is the secret\'s');
        const key = deal.dealKey(seed, round.started.seat_seeds, round.dealt.round_no, 2, 2);
        assert.deepEqual(deal.deck(key), [...round.dealt.deck], 'the deck recomputed from the revealed seeds');
        if (round.dealt.round_no === 1) assert.equal(deal.dealer(key, 2), round.dealt.dealer, 'round 1 dealer');
        rounds++;
        round = null;
      }
    }
    assert.ok(rounds >= 1, 'a round was scored');
    const verdict = await S.ledger.VerifyDeal({ room_id: roomId });
    assert.equal(verdict.ok, true, JSON.stringify(verdict.rounds.map((r) => r.mismatch)));
    assert.ok(verdict.rounds.every((r) => r.verdict === enumValue('hand.v1.DealVerdict', 'DEAL_VERDICT_VERIFIED')));
  });

  it('answers the rules service from proto/ too (Echo)', async () => {
    const res = await S.rules.Echo({ payload: Buffer.from('hand') });
    assert.equal(Buffer.from(res.payload).toString(), 'hand');
  });
});

