'use strict';
// Offline checks of the client's reading of the contract (no server needed):
// card ids, error details, presence, the secret-field walk.

const { test } = require('node:test');
const assert = require('node:assert/strict');

const hand = require('./lib/hand');
const cards = require('./lib/cards');
const walk = require('./lib/walk');

const { type, has } = hand;

test('card ids follow cards.proto: 1..106, 0 is no card', () => {
  assert.equal(cards.text(1), 'AS');
  assert.equal(cards.text(23), '10H');
  assert.equal(cards.text(52), 'KC');
  assert.equal(cards.text(74), '9H#2');
  assert.equal(cards.text(105), 'JK');
  assert.equal(cards.text(106), 'JK#2');
  assert.equal(cards.isCard(0), false);
  assert.equal(cards.isCard(107), false);
  const all = new Set([...Array(106).keys()].map((i) => cards.text(i + 1)));
  assert.equal(all.size, 106);
});

test('hand-deal/1 from decision 0022 alone gives the known-answer vector', () => {
  const deal = require('./lib/deal');
  const seed = Buffer.from([...Array(32).keys()]);
  const key = deal.dealKey(seed, ['alice', 'bob'], 1, 2);
  assert.equal(key.toString('hex'), 'b9e2c70b6a17092de2d2462321f7202bdb089a1341e4e37a6614d387b9bf6822');
  assert.deepEqual(deal.deck(key).slice(0, 10), [81, 83, 68, 13, 43, 38, 25, 4, 79, 3]);
  assert.equal(deal.dealer(key, 2), 1);
  assert.equal(deal.commitment(seed).toString('hex'), '630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd');
  assert.deepEqual(deal.rebuild(key, [10, 2, 6, 4], 1), [6, 2, 10, 4]);
  assert.equal(new Set(deal.deck(key)).size, 106);
});

test('hand-deal/2 from decision 0034 alone gives the known-answer vector', () => {
  const deal = require('./lib/deal');
  const secret = Buffer.from([...Array(32).keys()]);
  const seed1 = deal.roundSeed(secret, 1);
  assert.equal(seed1.toString('hex'), '0224ca00477d12f3150cafa66c21b1eadd6ce3cd73306013471447a22f704434');
  assert.equal(deal.roundSeed(secret, 2).toString('hex'), 'dfb6f3ae9ff524769d6d6c9ef2b8a2dcc14875e598f9b3cce5a84e6e38347257');
  assert.equal(deal.drawnSeatSeed(secret, 1), '27907ce58f02499480328d8eb8ce589d');
  const key = deal.dealKey(seed1, ['alice', 'bob'], 1, 2, 2);
  assert.equal(key.toString('hex'), '71c8b9d242f13f9f81311a03703e0b36d5b127043e87f986059bb1ddc40c0f01');
  assert.deepEqual(deal.deck(key).slice(0, 10), [93, 84, 45, 89, 71, 87, 35, 82, 6, 12]);
  assert.equal(deal.dealer(key, 2), 1);
});

test('every proto file loads and every service resolves', () => {
  for (const s of ['hand.v1.RoomService', 'hand.v1.RulesService', 'hand.v1.LedgerService']) {
    const svc = hand.root.lookupService(s);
    for (const m of svc.methodsArray) assert.ok(m.resolvedRequestType && m.resolvedResponseType, `${s}.${m.name}`);
  }
  const pkg = hand.root.lookup('hand.v1');
  const enums = pkg.nestedArray.filter((n) => n.valuesById);
  assert.ok(enums.length > 10);
  for (const e of enums) assert.ok(e.valuesById[0].endsWith('_UNSPECIFIED'), `${e.name}: zero is *_UNSPECIFIED`);
});

test('seat 0 survives the wire with explicit presence; an unset seat is told apart', () => {
  const T = type('hand.v1.RoomSeat');
  const zero = T.decode(T.encode(T.fromObject({ seat: 0 })).finish());
  assert.ok(has(zero, 'seat'));
  assert.equal(zero.seat, 0);
  const unset = T.decode(T.encode(T.fromObject({ name: 'x' })).finish());
  assert.ok(!has(unset, 'seat'));
});

test('a refusal decodes from grpc-status-details-bin to a RuleError', () => {
  const RuleError = type('hand.v1.RuleError');
  const Status = type('google.rpc.Status');
  const code = hand.enumValue('hand.v1.ErrorCode', 'ERROR_CODE_CARD_NOT_IN_HAND');
  const detail = RuleError.encode({ code, message: 'no', params: { card: '10H' } }).finish();
  const status = Status.encode({ code: 9, message: 'no', details: [{ type_url: hand.RULE_ERROR_URL, value: detail }] }).finish();
  const md = new hand.grpc.Metadata();
  md.set('grpc-status-details-bin', Buffer.from(status));
  const rule = hand.ruleErrorOf({ code: 9, metadata: md });
  assert.equal(rule.code, 'ERROR_CODE_CARD_NOT_IN_HAND');
  assert.deepEqual(rule.params, { card: '10H' });
  assert.equal(rule.status.code, 9);
  assert.equal(hand.ruleErrorOf({ code: 2, metadata: new hand.grpc.Metadata() }), null);
});

test('the secret walk finds every field a spectator must not see', () => {
  const T = type('hand.v1.RoomEvent');
  const enc = (o) => T.decode(T.encode(T.fromObject(o)).finish());
  assert.deepEqual(walk.secretsIn(T, enc({ round_dealt: { deck: [1, 2], events: [{ round_started: { seed: '7' } }] } })),
    ['RoomEvent.round_dealt.deck', 'RoomEvent.round_dealt.events[0].round_started.seed']);
  assert.deepEqual(walk.secretsIn(T, enc({ seat_taken: { seat: 1, player_id: 'p', token_hash: 'h' } })),
    ['RoomEvent.seat_taken.player_id', 'RoomEvent.seat_taken.token_hash']);
  assert.deepEqual(walk.secretsIn(T, enc({ match_started: { seed: '0' } })), ['RoomEvent.match_started.seed']);
  assert.deepEqual(walk.secretsIn(T, enc({ room_created: { join_code: 'ABC123' } })), ['RoomEvent.room_created.join_code']);
  assert.deepEqual(walk.secretsIn(T, enc({ room_created: { deal_commitment: Buffer.alloc(32, 1), match_secret: Buffer.alloc(32, 2) } })),
    ['RoomEvent.room_created.match_secret']);
  assert.deepEqual(walk.secretsIn(T, enc({ move_made: { seat: 0, events: [{ stock_drawn: { seat: 0 } }] } })), []);
  assert.deepEqual(walk.badCardIds(T, enc({ move_made: { events: [{ card_discarded: { seat: 1, card: 0 } }] } })),
    ['RoomEvent.move_made.events[0].card_discarded.card=0']);
});

test('64-bit seeds keep every digit', () => {
  const T = type('hand.v1.StartMatchRequest');
  const m = T.decode(T.encode(T.fromObject({ seed: '18446744073709551557' })).finish());
  assert.equal(T.toObject(m, { longs: String }).seed, '18446744073709551557');
});
