'use strict';
// Reflection walks over decoded messages: every card id field, and every
// field a spectator must never see, found through the types of proto/.

const { has } = require('./hand');
const cards = require('./cards');

// uint32 fields that hold card ids (cards.proto): the same names in every file.
const CARD_FIELDS = new Set(['card', 'cards', 'hand', 'pile', 'deck', 'order', 'cards_left',
  'joker', 'drawn', 'taken', 'stock']);

/**
 * Calls visit(type, message, fieldPath) for every message inside `msg`
 * (itself included), following only fields that are set.
 */
function eachMessage(type, msg, visit, at = type.name) {
  if (msg == null) return;
  visit(type, msg, at);
  for (const field of type.fieldsArray) {
    if (!field.resolvedType || !field.resolvedType.fieldsArray) continue; // scalars, enums
    if (field.map) {
      for (const [k, v] of Object.entries(msg[field.name] || {})) {
        eachMessage(field.resolvedType, v, visit, `${at}.${field.name}[${k}]`);
      }
    } else if (field.repeated) {
      (msg[field.name] || []).forEach((v, i) => eachMessage(field.resolvedType, v, visit, `${at}.${field.name}[${i}]`));
    } else if (has(msg, field.name)) {
      eachMessage(field.resolvedType, msg[field.name], visit, `${at}.${field.name}`);
    }
  }
}

/** Every card id in `msg` as [path, id]; ids are checked by the caller. */
function cardIds(type, msg) {
  const found = [];
  eachMessage(type, msg, (t, m, at) => {
    for (const field of t.fieldsArray) {
      if (!CARD_FIELDS.has(field.name) || field.type !== 'uint32') continue;
      if (field.repeated) {
        (m[field.name] || []).forEach((id, i) => found.push([`${at}.${field.name}[${i}]`, id]));
      } else if (field.options && field.options.proto3_optional) {
        if (has(m, field.name)) found.push([`${at}.${field.name}`, m[field.name]]);
      } else if (field.partOf == null) {
        // A plain uint32 card field: set in every message that has it (0 would be "no card").
        found.push([`${at}.${field.name}`, m[field.name]]);
      }
    }
  });
  return found;
}

/** Paths of card ids in `msg` that are not 1..106 (0 included). */
function badCardIds(type, msg) {
  return cardIds(type, msg).filter(([, id]) => !cards.isCard(id)).map(([p, id]) => `${p}=${id}`);
}

/**
 * What a spectator-safe message must not carry (room_events.proto,
 * events.proto): a deck, a seed, a round's server seed before its end, the room's match secret (revealed by
 * match_ended), a stock draw's card, a rebuild order, a
 * player id, a token hash, a join code, a hand. Returns the offending paths.
 */
function secretsIn(type, msg) {
  const leaks = [];
  eachMessage(type, msg, (t, m, at) => {
    const name = t.fullName.replace(/^\./, '');
    const set = (f) => has(m, f) && !(Array.isArray(m[f]) && m[f].length === 0) && m[f] !== '';
    const check = (f, cond) => { if (cond) leaks.push(`${at}.${f}`); };
    switch (name) {
      case 'hand.v1.RoundDealt':
        check('deck', m.deck.length > 0);
        check('server_seed', m.server_seed && m.server_seed.length > 0); // revealed by round_scored only
        break;
      case 'hand.v1.RoundStarted': check('deck', m.deck.length > 0); check('seed', has(m, 'seed')); break;
      case 'hand.v1.MatchStarted': check('seed', has(m, 'seed')); break;
      case 'hand.v1.StockDrawn': check('card', has(m, 'card')); break;
      case 'hand.v1.StockRebuilt': check('order', m.order.length > 0); break;
      case 'hand.v1.SeatTaken':
        check('player_id', set('player_id'));
        check('token_hash', set('token_hash'));
        break;
      case 'hand.v1.RoomCreated':
        check('join_code', set('join_code'));
        check('match_secret', m.match_secret && m.match_secret.length > 0); // revealed by match_ended only
        break;
      case 'hand.v1.RoomInfo': check('join_code', set('join_code')); break;
      case 'hand.v1.SeatView':
        check('hand', m.hand.length > 0);
        check('seat', has(m, 'seat'));
        break;
      case 'hand.v1.TurnView': check('drawn', has(m, 'drawn')); break;
      default: break;
    }
  });
  return leaks;
}

module.exports = { CARD_FIELDS, eachMessage, cardIds, badCardIds, secretsIn };
