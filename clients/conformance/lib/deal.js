'use strict';
// hand-deal/1 (docs/decisions/0022-provably-fair-deals.md) and hand-deal/2
// (docs/decisions/0034-match-commitment.md), written from the decision records
// alone: the deck, round 1's dealer and every stock rebuild of a provably fair
// round, recomputed from the revealed server seed and the seat seeds; for
// version 2, each round's server seed and each drawn seat seed from the
// revealed match secret. Card ids as on the wire (1..106); the shuffle only
// moves positions.

const crypto = require('node:crypto');

const TOP = 1n << 64n;

function u32(n) {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
}

/** key = HMAC-SHA-256(server_seed, "hand-deal/V" 0x00 round_no n_seats (len seed)*), V = version */
function dealKey(serverSeed, seatSeeds, roundNo, nSeats, version = 1) {
  const parts = [Buffer.from(`hand-deal/${version}\0`), u32(roundNo), u32(nSeats)];
  for (const s of seatSeeds) {
    const raw = Buffer.from(s, 'utf8');
    parts.push(u32(raw.length), raw);
  }
  return crypto.createHmac('sha256', Buffer.from(serverSeed)).update(Buffer.concat(parts)).digest();
}

/** The 64-bit words of HMAC-SHA-256(key, label 0x00 i:u64), i = 0, 1, ... */
function* words(key, label) {
  for (let i = 0n; ; i++) {
    const ctr = Buffer.alloc(8);
    ctr.writeBigUInt64BE(i);
    const block = crypto.createHmac('sha256', key).update(Buffer.concat([Buffer.from(`${label}\0`), ctr])).digest();
    for (let w = 0; w < 4; w++) yield block.readBigUInt64BE(w * 8);
  }
}

function uniform(stream, m) {
  const limit = TOP - (TOP % BigInt(m));
  for (;;) {
    const u = stream.next().value;
    if (u < limit) return Number(u % BigInt(m));
  }
}

function shuffle(key, items, label) {
  const out = [...items];
  const stream = words(key, label);
  for (let i = out.length - 1; i > 0; i--) {
    const j = uniform(stream, i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

const deck = (key) => shuffle(key, Array.from({ length: 106 }, (_, i) => i + 1), 'deal');
const dealer = (key, nSeats) => uniform(words(key, 'dealer'), nSeats);
const rebuild = (key, cards, k) => shuffle(key, [...cards].sort((a, b) => a - b), `rebuild:${k}`);
const commitment = (serverSeed) => crypto.createHash('sha256').update(Buffer.from(serverSeed)).digest();

const V2 = (what, n) => Buffer.concat([Buffer.from(`hand-deal/2\0${what}\0`), u32(n)]);
/** version 2: round r's server seed = HMAC-SHA-256(M, "hand-deal/2" 0x00 "round" 0x00 r:u32) */
const roundSeed = (secret, roundNo) => crypto.createHmac('sha256', Buffer.from(secret)).update(V2('round', roundNo)).digest();
/** version 2: a seat seed the owner draws = hex(HMAC-SHA-256(M, "hand-deal/2" 0x00 "seat" 0x00 seat:u32))[:32] */
const drawnSeatSeed = (secret, seat) =>
  crypto.createHmac('sha256', Buffer.from(secret)).update(V2('seat', seat)).digest('hex').slice(0, 32);

module.exports = { dealKey, deck, dealer, rebuild, commitment, roundSeed, drawnSeatSeed };
