'use strict';
// The stateless rules service from proto/ only: deal a round, read views,
// staging and suggestions, apply moves and an automatic turn, send the
// RoundState back as received. Needs HAND_RULES_ADDR (skipped without it,
// unless HAND_CONFORMANCE_REQUIRED=1).

const { describe, it, before, after } = require('node:test');
const assert = require('node:assert/strict');

const hand = require('./lib/hand');
const cards = require('./lib/cards');
const walk = require('./lib/walk');

const { num, has, type, enumValue } = hand;
const { status: Code } = hand.grpc;

const ADDR = process.env.HAND_RULES_ADDR;
const skip = !ADDR && process.env.HAND_CONFORMANCE_REQUIRED !== '1' ? 'no HAND_RULES_ADDR' : false;
const SEED = '18446744073709551557'; // above 2^53: survives only as a 64-bit integer
const RoundState = type('hand.v1.RoundState');
const ids = (n) => [...Array(n).keys()].map((i) => i + 1);
const sorted = (xs) => [...xs].sort((a, b) => a - b);

describe('conformance: the rules service', { skip }, () => {
  let rules;
  let dealt;

  before(() => {
    rules = hand.connect('hand.v1.RulesService', ADDR);
  });
  after(() => rules && rules.close());

  it('deals a round from a 64-bit seed, every card id 1..106 once', async () => {
    dealt = await rules.StartRound({ rules: { preset: 'hand' }, seats: 3, seed: SEED, dealer: 0 });
    const { state, events } = dealt;
    assert.equal(RoundState.toObject(state, { longs: String }).seed, SEED, 'the seed keeps every digit');
    assert.deepEqual(sorted(state.deck), ids(106));
    const held = [...state.seats.flatMap((s) => s.hand), ...state.stock, ...state.pile];
    assert.deepEqual(sorted(held), ids(106), 'hands + stock + pile = the deck');
    assert.deepEqual(walk.badCardIds(RoundState, state), []);
    assert.ok(has(state, 'dealer') && state.dealer === 0, 'dealer 0 is present');
    assert.ok(has(state.turn, 'seat') && state.turn.seat === 1, 'the starter is dealer + 1');
    assert.equal(state.turn.opening_discard, true);
    assert.deepEqual(events.map((e) => e.event), ['round_started', 'turn_started']);
    assert.equal(events[0].round_started.deck.length, 106, 'the rules service returns events in full');
  });

  it('gives a spectator no hand and a seat its own', async () => {
    const { state } = dealt;
    const spectator = (await rules.GetView({ state })).view;
    assert.ok(!has(spectator, 'seat'));
    assert.equal(spectator.hand.length, 0);
    assert.deepEqual(walk.secretsIn(type('hand.v1.SeatView'), spectator), []);
    const mine = (await rules.GetView({ state, seat: 0 })).view;
    assert.ok(has(mine, 'seat') && mine.seat === 0, 'seat 0 is present');
    assert.deepEqual(mine.hand, state.seats[0].hand);
    assert.deepEqual(mine.seats.map((s) => s.hand_size), state.seats.map((s) => s.hand.length));
  });

  it('suggests melds from the hand and judges them green', async (t) => {
    const { state } = dealt;
    const seat = state.turn.seat;
    const hand_ = new Set(state.seats[seat].hand);
    const s = await rules.SuggestMelds({ state, seat, goal: 'SUGGESTION_GOAL_SHED' });
    assert.equal(s.values.length, s.melds.length);
    assert.equal(s.total, s.values.reduce((a, b) => a + b, 0));
    for (const m of s.melds) for (const c of m.cards) assert.ok(hand_.has(c), `suggested ${cards.text(c)} is in hand`);
    t.diagnostic(`seat ${seat}: ${s.melds.length} melds suggested, total ${s.total}, left ${s.left_value}`);
    const staging = await rules.EvaluateStaging({ state, seat, candidates: s.melds.map((m) => ({ cards: m.cards })) });
    const green = enumValue('hand.v1.StagingColour', 'STAGING_COLOUR_GREEN');
    for (const v of staging.evaluation.verdicts) assert.equal(v.colour, green);
  });

  it('refuses a move out of turn with RuleError details, then applies the starter\'s discard', async () => {
    const { state } = dealt;
    let err = null;
    try {
      await rules.ApplyAction({ state, seat: 0, action: { discard: { card: state.seats[0].hand[0] } } });
    } catch (e) {
      err = e;
    }
    assert.ok(err && err.rule, 'refused with details');
    assert.equal(err.code, Code.FAILED_PRECONDITION);
    assert.equal(err.rule.code, 'ERROR_CODE_NOT_YOUR_TURN');

    const card = state.seats[1].hand.at(-1);
    const applied = await rules.ApplyAction({ state, seat: 1, action: { discard: { card } } });
    const discarded = applied.events.find((e) => e.event === 'card_discarded');
    assert.ok(discarded && discarded.card_discarded.seat === 1 && discarded.card_discarded.card === card);
    assert.equal(applied.state.pile.at(-1), card, 'the discard is the pile top');
    assert.ok(has(applied.state.turn, 'seat') && applied.state.turn.seat === 2);
    assert.equal(num(applied.state.seed), num(state.seed), 'the state went back and forth intact');

    const auto = await rules.AutoTurn({ state: applied.state });
    assert.ok(auto.actions.length >= 2, 'an automatic turn draws and ends');
    assert.equal(auto.actions[0].action, 'draw_stock');
    assert.equal(auto.actions.at(-1).action, 'discard');
  });
});
