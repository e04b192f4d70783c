'use strict';
// Offline: how lib/owner.js reaches a room's owner, against two local grpc-js
// servers that stand in for room instances (no services needed). "Elsewhere"
// owns no room: it refuses an unmarked Act or Watch with ROOM_MOVED naming
// "owner", and serves a marked one (hand-redirected: 1), as the contract says;
// "owner" serves everything and counts OVERLOADED refusals it was told to give.

const { describe, it, before, after } = require('node:test');
const assert = require('node:assert/strict');

const hand = require('./lib/hand');
const { roomClient } = require('./lib/owner');

const { grpc, type } = hand;
const Status = type('google.rpc.Status');
const RuleError = type('hand.v1.RuleError');

function refusal(code, grpcCode, params) {
  const detail = RuleError.encode({ code: hand.enumValue('hand.v1.ErrorCode', code), message: code, params }).finish();
  const status = Status.encode({ code: grpcCode, message: code,
    details: [{ type_url: hand.RULE_ERROR_URL, value: detail }] }).finish();
  const metadata = new grpc.Metadata();
  metadata.set('grpc-status-details-bin', Buffer.from(status));
  return { code: grpcCode, details: code, metadata };
}

/** A stand-in room instance: `moveTo` set → ROOM_MOVED for unmarked Act/Watch; `overloaded` → that many refusals;
 * `dropped` → that many calls answered CANCELLED with no RuleError, as a runtime dropping its backlog does. */
async function instance(name, { moveTo = null, overloaded = 0, dropped = 0 } = {}) {
  const seen = [];
  const server = new grpc.Server();
  const service = {};
  const methods = hand.root.lookupService('hand.v1.RoomService').methodsArray;
  const definition = {};
  for (const m of methods) {
    const Req = m.resolvedRequestType;
    const Res = m.resolvedResponseType;
    definition[m.name] = { path: `/hand.v1.RoomService/${m.name}`, requestStream: false, responseStream: !!m.responseStream,
      requestDeserialize: (b) => Req.decode(b), responseSerialize: (o) => Buffer.from(Res.encode(Res.fromObject(o)).finish()),
      requestSerialize: (o) => Buffer.from(Req.encode(o).finish()), responseDeserialize: (b) => Res.decode(b) };
  }
  const marked = (call) => call.metadata.get('hand-redirected')[0] === '1';
  const moved = () => refusal('ERROR_CODE_ROOM_MOVED', grpc.status.FAILED_PRECONDITION,
    { owner_address: moveTo, owner_web_url: '', owner_instance: 'owner' });
  service.Act = (call, cb) => {
    seen.push({ method: 'Act', marked: marked(call), id: call.request.action_id });
    if (moveTo && !marked(call)) return cb(moved());
    if (dropped > 0) {
      dropped -= 1;
      return cb({ code: grpc.status.CANCELLED, details: 'Cancelled' });
    }
    if (overloaded > 0) {
      overloaded -= 1;
      return cb(refusal('ERROR_CODE_OVERLOADED', grpc.status.RESOURCE_EXHAUSTED, { limit: 'pending_commands', retry_after_ms: '20' }));
    }
    return cb(null, { first_seq: 5, last_seq: 5 });
  };
  service.Watch = (call) => {
    seen.push({ method: 'Watch', marked: marked(call) });
    if (moveTo && !marked(call)) { call.emit('error', moved()); return; }
    if (dropped > 0) { dropped -= 1; call.emit('error', { code: grpc.status.CANCELLED, details: 'Cancelled' }); return; }
    call.write({ snapshot: { next_seq: call.request.from_seq } });
    call.end();
  };
  service.GetRoom = (call, cb) => {
    seen.push({ method: 'GetRoom', marked: marked(call) });
    cb(null, { room: { room_id: call.request.room_id, owner: { address: moveTo || 'self', instance_id: name } } });
  };
  server.addService(definition, service);
  const port = await new Promise((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))));
  return { name, address: `127.0.0.1:${port}`, seen, server, set moveTo(v) { moveTo = v; }, set dropped(v) { dropped = v; } };
}

async function closedAddress() {
  const probe = await instance('closed');
  await new Promise((r) => probe.server.tryShutdown(r));
  return probe.address;
}

describe('lib/owner.js: reaching the room owner (offline, stand-in servers)', () => {
  let owner, elsewhere;
  const clients = [];
  before(async () => {
    owner = await instance('owner');
    elsewhere = await instance('elsewhere', { moveTo: owner.address });
  });
  after(() => {
    for (const c of clients) c.close();
    owner.server.forceShutdown();
    elsewhere.server.forceShutdown();
  });
  const client = (address) => { const c = roomClient(address); clients.push(c); return c; };
  const act = (id) => ({ room_id: 'r1', seat_token: 't', action_id: id, action: { draw_stock: {} } });

  it('follows ROOM_MOVED once with hand-redirected: 1, then sends to the owner directly', async () => {
    const c = client(elsewhere.address);
    assert.equal(hand.num((await c.Act(act('a1'))).last_seq), 5);
    assert.deepEqual(elsewhere.seen.filter((s) => s.id === 'a1'), [{ method: 'Act', marked: false, id: 'a1' }]);
    assert.deepEqual(owner.seen.filter((s) => s.id === 'a1'), [{ method: 'Act', marked: true, id: 'a1' }]);
    assert.equal(c.stats.redirects, 1);
    assert.equal(c.ownerOf('r1'), owner.address, 'the owner is kept');
    await c.Act(act('a2'));
    assert.deepEqual(owner.seen.filter((s) => s.id === 'a2'), [{ method: 'Act', marked: false, id: 'a2' }],
      'the next Act goes straight to the owner, unmarked');
    assert.equal(elsewhere.seen.filter((s) => s.id === 'a2').length, 0);
  });

  it('follows a Watch refused with ROOM_MOVED before its first message', async () => {
    const c = client(elsewhere.address);
    const messages = await new Promise((resolve, reject) => {
      const got = [];
      const call = c.Watch({ room_id: 'r2', from_seq: 3 });
      call.on('data', (m) => got.push(m));
      call.on('error', reject);
      call.on('end', () => resolve(got));
    });
    assert.deepEqual(messages.map((m) => hand.num(m.snapshot.next_seq)), [3]);
    assert.equal(c.stats.redirects, 1);
    assert.equal(owner.seen.at(-1).marked, true);
  });

  it('learns the owner from a RoomInfo', async () => {
    const c = client(elsewhere.address);
    await c.GetRoom({ room_id: 'r3' });
    assert.equal(c.ownerOf('r3'), owner.address);
    await c.Act({ ...act('a3'), room_id: 'r3' });
    assert.equal(c.stats.redirects, 0, 'no redirect needed');
    assert.deepEqual(owner.seen.filter((s) => s.id === 'a3'), [{ method: 'Act', marked: false, id: 'a3' }]);
  });

  it('falls back to its own instance, marked, when the owner cannot be reached', async () => {
    const dead = await closedAddress();
    elsewhere.moveTo = dead;
    try {
      const c = client(elsewhere.address);
      await c.Act(act('a4'));
      assert.deepEqual(elsewhere.seen.filter((s) => s.id === 'a4').map((s) => s.marked), [false, true],
        'refused unmarked, then served marked after the owner did not answer');
      assert.equal(c.stats.fallbacks, 1);
      await c.Act(act('a5'));
      assert.deepEqual(elsewhere.seen.filter((s) => s.id === 'a5').map((s) => s.marked), [true],
        'an owner that did not answer is set aside: the next call goes marked to its own instance');
    } finally {
      elsewhere.moveTo = owner.address;
    }
  });

  it('retries OVERLOADED after retry_after_ms with the same action id', async () => {
    const busy = await instance('busy', { overloaded: 2 });
    try {
      const c = client(busy.address);
      assert.equal(hand.num((await c.Act(act('a6'))).last_seq), 5);
      assert.deepEqual(busy.seen.map((s) => s.id), ['a6', 'a6', 'a6'], 'the same request, three times');
    } finally {
      busy.server.forceShutdown();
    }
  });

  it('retries a call dropped from the server backlog (CANCELLED, no RuleError) after a growing back-off', async () => {
    const busy = await instance('dropping', { dropped: 2 });
    try {
      const c = client(busy.address);
      const began = Date.now();
      assert.equal(hand.num((await c.Act(act('a7'))).last_seq), 5);
      assert.deepEqual(busy.seen.map((s) => s.id), ['a7', 'a7', 'a7'], 'the same request, three times');
      assert.ok(Date.now() - began >= 0.8 * (200 + 400), 'waited 200 ms, then 400 ms (±20 %)');
      busy.seen.length = 0;
      busy.dropped = 1;
      const w = c.Watch({ room_id: 'r1', seat_token: 't', from_seq: 7 });
      const got = await new Promise((resolve, reject) => { w.on('data', resolve); w.on('error', reject); });
      assert.equal(hand.num(got.snapshot.next_seq), 7, 'the dropped Watch was opened again');
      assert.equal(busy.seen.filter((s) => s.method === 'Watch').length, 2, 'dropped once, then served');
      w.cancel();
    } finally {
      busy.server.forceShutdown();
    }
  });
});
