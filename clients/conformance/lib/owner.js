'use strict';
// Reaching the room's owner (docs/clients.md, "Reaching the room's owner").
// A room's Act and Watch are served only by the room-service instance that
// owns it: every RoomInfo names it (`owner.address`), and another instance
// refuses them with FAILED_PRECONDITION / ERROR_CODE_ROOM_MOVED and the
// owner in params.owner_address. This client of RoomService keeps, per room,
// the owner's address; sends the room's Act and Watch there; follows a
// ROOM_MOVED once, with the metadata `hand-redirected: 1`, and keeps the new
// owner; an owner it cannot reach is set aside for a while and the call goes,
// marked, to the instance it was given (which forwards it). Every other call
// goes to that instance. A call refused with ERROR_CODE_OVERLOADED is sent
// again, the same request (the same action id), after params.retry_after_ms;
// one the server's runtime dropped from its backlog (CANCELLED that this client
// did not cancel, no RuleError) after a back-off that grows with each try.

const { EventEmitter } = require('node:events');
const { connect, has, root, ruleErrorOf, grpc } = require('./hand');

const REDIRECTED = 'hand-redirected';
const DOWN_MS = 30000;
const OVERLOAD_TRIES = 5;
const LOOPBACK = /^(localhost|127\.0\.0\.1|\[::1\])(?=:)/;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const normalise = (address) => (address || '').trim().replace(LOOPBACK, '127.0.0.1');

/** ROOM_MOVED: the owner's gRPC address ('' when the refusal names none); null for any other error. */
function movedTo(err) {
  return err && err.rule && err.rule.code === 'ERROR_CODE_ROOM_MOVED' ? (err.rule.params.owner_address || '') : null;
}

/** No server answered (a refused connection, a name that does not resolve): UNAVAILABLE without a RuleError. */
function unreachable(err) {
  return !!err && err.code === grpc.status.UNAVAILABLE && !err.rule;
}

/** OVERLOADED: ms to wait before the same request is sent again; null for any other error. */
function retryAfterMs(err) {
  if (!err || !err.rule || err.rule.code !== 'ERROR_CODE_OVERLOADED') return null;
  const ms = Number(err.rule.params.retry_after_ms);
  return Math.min(Math.max(Number.isFinite(ms) ? ms : 200, 10), 5000);
}

/** CANCELLED that this client did not cancel (no RuleError): the server's runtime dropped the call
 * from its backlog before any of its code ran. ms to wait before try `tries` + 1 (200 ms doubling,
 * at most 2 s, ±20 % jitter); null for any other error. */
function droppedBackoffMs(err, tries) {
  if (!err || err.code !== grpc.status.CANCELLED || err.rule) return null;
  return Math.min(200 * 2 ** (tries - 1), 2000) * (0.8 + Math.random() * 0.4);
}

/**
 * A RoomService client (the same methods as hand.connect's) that reaches each
 * room's owner. `home`: the address it was given. `stats` counts what it did:
 * redirects followed, fallbacks to home, and calls per address.
 */
function roomClient(home, { lang = 'en' } = {}) {
  home = normalise(home);
  const clients = new Map(); // address → hand.connect client
  const owners = new Map(); // room id → owner address (never home)
  const down = new Map(); // address → until when it is not tried
  const stats = { redirects: 0, fallbacks: 0, calls: {} };
  const api = { token: null, stats, home, ownerOf: (roomId) => owners.get(roomId) || home };

  const at = (address) => {
    let c = clients.get(address);
    if (!c) { c = connect('hand.v1.RoomService', address, { lang }); clients.set(address, c); }
    stats.calls[address] = (stats.calls[address] || 0) + 1;
    return c;
  };
  const options = (opts, marked) => ({
    ...opts,
    token: opts.token === undefined ? api.token : opts.token,
    headers: marked ? { ...(opts.headers || {}), [REDIRECTED]: '1' } : opts.headers,
  });
  const keep = (roomId, address) => {
    const a = normalise(address);
    if (!a || a === home) owners.delete(roomId);
    else owners.set(roomId, a);
  };
  /** Keep the owner a RoomInfo names (an unset owner changes nothing). */
  const learn = (room) => {
    if (room && room.room_id && has(room, 'owner')) keep(room.room_id, room.owner.address);
  };
  const route = (roomId) => {
    const owner = owners.get(roomId);
    if (!owner) return { address: home, marked: false };
    if ((down.get(owner) || 0) > Date.now()) return { address: home, marked: true };
    return { address: owner, marked: false };
  };
  /** Where a failed call goes next; null: nowhere, the error is the caller's. */
  const after = (roomId, address, marked, err) => {
    const to = marked ? null : movedTo(err);
    if (to !== null) {
      keep(roomId, to);
      stats.redirects++;
      return normalise(to) || home;
    }
    if (address !== home && unreachable(err)) {
      down.set(address, Date.now() + DOWN_MS);
      stats.fallbacks++;
      return home;
    }
    return null;
  };
  const unary = async (name, address, req, opts, marked) => {
    for (let tries = 1; ; tries++) {
      try {
        const res = await at(address)[name](req, options(opts, marked));
        if (res && has(res, 'room')) learn(res.room);
        return res;
      } catch (err) {
        const wait = retryAfterMs(err) ?? droppedBackoffMs(err, tries);
        if (wait === null || tries >= OVERLOAD_TRIES) throw err;
        await sleep(wait);
      }
    }
  };

  for (const m of root.lookupService('hand.v1.RoomService').methodsArray) {
    if (!m.responseStream) api[m.name] = (req, opts = {}) => unary(m.name, home, req, opts, false);
  }

  /** A call served by the room's owner only (Act, Chat, ComeBack): at the owner, a ROOM_MOVED followed once.
   * `keyOf`: what the owner is kept by (a room id; a play-now pool: "mm:<preset>:<seats>"). */
  const atOwner = (name, keyOf = (req) => req.room_id) => async (req, opts = {}) => {
    const key = keyOf(req);
    let { address, marked } = route(key);
    for (;;) {
      try {
        return await unary(name, address, req, opts, marked);
      } catch (err) {
        const next = after(key, address, marked, err);
        if (next === null) throw err;
        address = next;
        marked = true;
      }
    }
  };
  api.Act = atOwner('Act');
  api.Chat = atOwner('Chat');
  api.ComeBack = atOwner('ComeBack');
  // Play now: a ticket's calls are served by the owner of its pool, as a room's Act by the room's.
  const poolOf = (req) => `mm:${req.preset || 'hand'}:${req.seat_count || 4}`;
  const poolOfTicket = (req) => String(req.ticket_id || '').split(':').slice(0, 3).join(':');
  api.FindMatch = atOwner('FindMatch', poolOf);
  api.GetTicket = atOwner('GetTicket', poolOfTicket);
  api.CancelTicket = atOwner('CancelTicket', poolOfTicket);

  /** Watch at the room's owner: an emitter of 'data' / 'error' / 'end' with cancel(), like grpc-js's
   * stream; a ROOM_MOVED or an unreachable owner before the first message is followed as for Act. */
  api.Watch = (req, opts = {}) => {
    const out = new EventEmitter();
    let current = null;
    let cancelled = false;
    let dropped = 0;
    const open = (address, marked) => {
      let got = false;
      const call = at(address).Watch(req, options(opts, marked));
      current = call;
      call.on('data', (m) => {
        if (call !== current) return;
        got = true;
        if (has(m, 'room')) learn(m.room);
        out.emit('data', m);
      });
      call.on('error', (err) => {
        if (call !== current) return;
        if (err && err.metadata) err.rule = ruleErrorOf(err);
        const next = got || cancelled ? null : after(req.room_id, address, marked, err);
        const wait = got || cancelled || next !== null ? null : droppedBackoffMs(err, ++dropped);
        if (next !== null) open(next, true);
        else if (wait !== null && dropped < OVERLOAD_TRIES) setTimeout(() => { if (!cancelled) open(address, marked); }, wait);
        else out.emit('error', err);
      });
      call.on('end', () => { if (call === current) out.emit('end'); });
    };
    const first = route(req.room_id);
    open(first.address, first.marked);
    out.cancel = () => { cancelled = true; if (current) current.cancel(); };
    return out;
  };

  api.close = () => { for (const c of clients.values()) c.close(); };
  return api;
}

module.exports = { roomClient, movedTo, unreachable, retryAfterMs, droppedBackoffMs, REDIRECTED };
