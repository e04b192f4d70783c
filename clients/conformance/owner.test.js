'use strict';
// Reaching the room's owner with two room-service instances (docs/clients.md,
// "Reaching the room's owner"): HAND_ROOM_ADDR (instance A) and
// HAND_ROOM_ADDR_B (instance B), one consumer group, one broker, one store.
// The host creates a room on A; a second player joins through B; both play
// their turns, each through its own client (lib/owner.js), to the end of a
// one-round match with a bot, and no move of either is refused. A third
// client, knowing only B and the room id, follows the ROOM_MOVED of its Watch.
// Without HAND_ROOM_ADDR_B this file is skipped (unless HAND_CONFORMANCE_REQUIRED=1).

const { describe, it, after } = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');

const hand = require('./lib/hand');
const cards = require('./lib/cards');
const { reader } = require('./lib/stream');
const { roomClient, REDIRECTED } = require('./lib/owner');

const { num, has, enumName, enumValue } = hand;
const { status: Code } = hand.grpc;
const A = process.env.HAND_ROOM_ADDR;
const B = process.env.HAND_ROOM_ADDR_B;
const required = process.env.HAND_CONFORMANCE_REQUIRED === '1';
const skip = !(A && B) && !required ? 'needs HAND_ROOM_ADDR and HAND_ROOM_ADDR_B (two room instances)' : false;
const MATCH_TIMEOUT_MS = Number(process.env.HAND_CONFORMANCE_MATCH_MS || 120000);
const same = (x, y) => x.replace(/^(localhost|\[::1\])(?=:)/, '127.0.0.1') === y.replace(/^(localhost|\[::1\])(?=:)/, '127.0.0.1');

/** The card to discard: the highest hand value, jokers kept. */
function choose(hand) {
  const naturals = hand.filter((c) => !cards.isJoker(c));
  const pool = naturals.length ? naturals : hand;
  return pool.reduce((best, c) => (cards.value(c) > cards.value(best) ? c : best), pool[0]);
}

/** A player: its client, seat and stream; plays its turns (draw, discard the highest card). */
function player(client, roomId, token, seat) {
  return { client, roomId, token, seat, view: null, room: null, seen: -1, waitFor: -1, moves: 0, refusals: [],
    ended: false, stream: reader(client.Watch({ room_id: roomId, seat_token: token, from_seq: 0 })) };
}

function myTurn(p) {
  return p.view && p.room && p.room.status === enumValue('hand.v1.RoomStatus', 'ROOM_STATUS_PLAYING')
    && !has(p.view, 'result') && has(p.view, 'turn') && p.view.turn.seat === p.seat && p.seen >= p.waitFor;
}

async function play(p, deadline) {
  while (!p.ended) {
    assert.ok(Date.now() < deadline, `seat ${p.seat}: the match ends in time`);
    const msg = await p.stream.next(60000);
    if (msg.message === 'event') {
      p.seen = num(msg.event.seq);
      if (msg.event.event === 'match_ended') { p.ended = true; break; }
    }
    if (has(msg, 'view')) p.view = msg.view;
    if (has(msg, 'room')) p.room = msg.room;
    if (p.stream.pending() > 0 || !myTurn(p)) continue;
    const draw = enumName('hand.v1.TurnPhase', p.view.turn.phase) === 'TURN_PHASE_DRAW';
    const action = draw ? { draw_stock: {} } : { discard: { card: choose(p.view.hand) } };
    try {
      // No expected_seq: another seat's presence event may land between this view and the move
      // (a STALE_ACTION that says nothing about reaching the owner); every refusal fails the test.
      const res = await p.client.Act({ room_id: p.roomId, seat_token: p.token, action_id: crypto.randomUUID(),
        action });
      p.waitFor = num(res.last_seq); // act again only once the stream shows this move
      p.moves += 1;
    } catch (err) {
      p.refusals.push(err.rule ? `${err.rule.code} ${err.rule.message}` : `${err.code} ${err.details}`);
      p.waitFor = p.seen + 1;
    }
  }
  p.stream.close();
}

describe("conformance: two room instances, each room's calls at its owner", { skip }, () => {
  const clients = [];
  const client = (address) => { const c = roomClient(address); clients.push(c); return c; };
  after(() => { for (const c of clients) c.close(); });

  it('plays a match created on A with a player who joined through B, no move refused', { timeout: MATCH_TIMEOUT_MS + 30000 }, async (t) => {
    const host = client(A);
    const created = await host.CreateRoom({
      rules: { preset: 'hand', overrides: { rounds: 1 } }, rounds: 1, seat_count: 3, turn_seconds: 30,
      visibility: 'ROOM_VISIBILITY_PRIVATE', player_name: 'Host', player_id: `owner-host-${crypto.randomUUID()}`,
    });
    const roomId = created.room.room_id;
    assert.ok(has(created.room, 'owner') && created.room.owner.address, 'CreateRoom names the owner (RoomInfo.owner)');
    assert.ok(same(created.room.owner.address, A), `the instance that created the room owns it: ${created.room.owner.address} vs ${A}`);
    assert.ok(created.room.owner.instance_id, 'the owner has an instance id');

    const joinerClient = client(B);
    const joined = await joinerClient.JoinRoom({ join_code: created.room.join_code, player_name: 'Joiner',
      player_id: `owner-joiner-${crypto.randomUUID()}` });
    assert.ok(has(joined.room, 'owner'), 'JoinRoom names the owner');
    assert.ok(same(joinerClient.ownerOf(roomId), joined.room.owner.address), 'the joiner keeps the owner it was told');

    // The instance that does not own the room refuses an unmarked Act and Watch with ROOM_MOVED
    // naming the owner (expected_seq 0 is stale: nothing could change even if it were served).
    const { room } = await joinerClient.GetRoom({ room_id: roomId });
    const owner = room.owner.address;
    const other = same(owner, A) ? B : A;
    const raw = hand.connect('hand.v1.RoomService', other);
    clients.push(raw);
    const act = { room_id: roomId, seat_token: joined.seat_token, action_id: crypto.randomUUID(),
      action: { draw_stock: {} }, expected_seq: 0 };
    const moved = await raw.Act(act).then(() => null, (e) => e);
    assert.ok(moved && moved.rule, `Act on the non-owner ${other} is refused with details`);
    assert.equal(moved.code, Code.FAILED_PRECONDITION);
    assert.equal(moved.rule.code, 'ERROR_CODE_ROOM_MOVED', moved.rule.message);
    assert.ok(same(moved.rule.params.owner_address, owner), JSON.stringify(moved.rule.params));
    assert.equal(moved.rule.params.owner_instance, room.owner.instance_id, JSON.stringify(moved.rule.params));
    const watchMoved = await reader(raw.Watch({ room_id: roomId, from_seq: 0 })).next(10000).then(() => null, (e) => e);
    assert.ok(watchMoved && watchMoved.rule, 'Watch on the non-owner is refused with details');
    assert.equal(watchMoved.rule.code, 'ERROR_CODE_ROOM_MOVED');
    // Marked as redirected, the same instance serves it (here: refused as stale, not moved).
    const marked = await raw.Act(act, { headers: { [REDIRECTED]: '1' } }).then(() => null, (e) => e);
    assert.ok(marked && marked.rule && marked.rule.code !== 'ERROR_CODE_ROOM_MOVED',
      `a marked Act is served: ${marked && marked.rule && marked.rule.code}`);

    // A client that knows only B and the room id follows the ROOM_MOVED of its Watch once.
    const spectatorClient = client(other);
    const spectator = reader(spectatorClient.Watch({ room_id: roomId, from_seq: 0 }));
    const snap = await spectator.next(10000);
    assert.equal(snap.message, 'snapshot');
    assert.equal(spectatorClient.stats.redirects, 1, 'the spectator followed one ROOM_MOVED');
    assert.ok(same(spectatorClient.ownerOf(roomId), owner), 'and keeps the owner');
    spectator.close();

    await host.FillWithBots({ room_id: roomId, seat_token: created.seat_token, level: 'BOT_LEVEL_STRONG' });
    const deadline = Date.now() + MATCH_TIMEOUT_MS;
    const players = [player(host, roomId, created.seat_token, created.seat),
      player(joinerClient, roomId, joined.seat_token, joined.seat)];
    await host.StartMatch({ room_id: roomId, seat_token: created.seat_token });
    await Promise.all(players.map((p) => play(p, deadline)));

    for (const p of players) {
      t.diagnostic(`seat ${p.seat}: ${p.moves} moves, calls by address ${JSON.stringify(p.client.stats.calls)}, `
        + `redirects ${p.client.stats.redirects}, fallbacks ${p.client.stats.fallbacks}`);
      assert.deepEqual(p.refusals, [], `seat ${p.seat}: no move refused`);
      assert.ok(p.moves >= 2, `seat ${p.seat} drew and discarded`);
      assert.equal(p.client.stats.fallbacks, 0, `seat ${p.seat}: the owner was always reachable`);
    }
    const ownerCalls = joinerClient.stats.calls[joinerClient.ownerOf(roomId)] || 0;
    assert.ok(ownerCalls >= players[1].moves + 1, "the joiner's Act and Watch went to the room's owner");
  });

  it('plays now: two players asking A and B get one table (FindMatch, GetTicket at the pool\'s owner)', async () => {
    const ask = async (address, name) => {
      const c = client(address);
      const found = await c.FindMatch({ preset: 'hand', seat_count: 2, player_name: name,
        player_id: `play-now-${name}-${crypto.randomUUID()}` });
      assert.equal(enumName('hand.v1.TicketStatus', found.ticket.status), 'TICKET_STATUS_WAITING');
      assert.ok(found.seat_token && found.ticket.ticket_id.startsWith('mm:hand:2:'), JSON.stringify(found.ticket));
      return { c, found };
    };
    const tickets = [await ask(A, 'Ann'), await ask(B, 'Bob')];
    const seated = [];
    for (const { c, found } of tickets) {
      const deadline = Date.now() + 20000;
      for (;;) {
        const { ticket } = await c.GetTicket({ ticket_id: found.ticket.ticket_id, seat_token: found.seat_token });
        if (enumName('hand.v1.TicketStatus', ticket.status) === 'TICKET_STATUS_SEATED') { seated.push(ticket); break; }
        assert.ok(Date.now() < deadline, 'the ticket is seated in time');
        await new Promise((r) => setTimeout(r, 200));
      }
    }
    assert.equal(seated[0].room_id, seated[1].room_id, 'both tickets at one table');
    assert.deepEqual(seated.map((t) => num(t.seat)).sort(), [0, 1]);
    const { room } = await tickets[0].c.GetRoom({ room_id: seated[0].room_id });
    assert.equal(enumName('hand.v1.RoomStatus', room.status), 'ROOM_STATUS_PLAYING', 'the match started by itself');
    // the ticket's seat token is the seat's: its Watch shows the seat's own hand
    const stream = reader(tickets[1].c.Watch({ room_id: room.room_id, seat_token: tickets[1].found.seat_token, from_seq: 0 }));
    let msg = await stream.next(10000);
    while (!has(msg, 'view') || !msg.view.hand || msg.view.hand.length === 0) msg = await stream.next(10000);
    stream.close();
  });
});
