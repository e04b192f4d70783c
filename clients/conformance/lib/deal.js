'use strict';
// hand-deal/1 (docs/decisions/0022-provably-fair-deals.md), written from the
// decision record alone: the deck, round 1's dealer and every stock rebuild of
// a provably fair round, recomputed from the revealed server seed and the seat
// seeds. Card ids as on the wire (1..106); the shuffle only moves positions.

const crypto = require('node:crypto');

const TOP = 1n << 64n;

function u32(n) {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
}

/** key = HMAC-SHA-256(server_seed, "hand-deal/1" 0x00 round_no n_seats (len seed)*) */
function dealKey(serverSeed, seatSeeds, roundNo, nSeats) {
  const parts = [Buffer.from('hand-deal/1\0'), u32(roundNo), u32(nSeats)];
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

module.exports = { dealKey, deck, dealer, rebuild, commitment };
