'use strict';
// Card ids as cards.proto defines them on the wire: 1..106,
// id = 52*(copy-1) + 13*suit + rank (suit S H D C = 0..3, rank A=1..K=13),
// jokers 105 and 106; 0 is never a card.

const RANKS = ['A', '2', '3', '4', '5', '6', '7', '8', '9', '10', 'J', 'Q', 'K'];
const SUITS = ['S', 'H', 'D', 'C'];
const MIN_CARD = 1;
const MAX_CARD = 106;

function isCard(id) {
  return Number.isInteger(id) && id >= MIN_CARD && id <= MAX_CARD;
}

function isJoker(id) {
  return id === 105 || id === 106;
}

/** {copy, suit (0..3), rank (1..13)} of a natural card; null for a joker. */
function decode(id) {
  if (!isCard(id)) throw new Error(`not a card id: ${id}`);
  if (isJoker(id)) return null;
  const e = id - 1;
  return { copy: Math.floor(e / 52) + 1, suit: Math.floor((e % 52) / 13), rank: (e % 13) + 1 };
}

/** Card text (docs/notation.md): 10H, AS, 9H#2, JK, JK#2. */
function text(id) {
  if (isJoker(id)) return id === 105 ? 'JK' : 'JK#2';
  const { copy, suit, rank } = decode(id);
  return `${RANKS[rank - 1]}${SUITS[suit]}${copy === 2 ? '#2' : ''}`;
}

/** Hand value of a card (docs/rules.md §1): ace 11, faces 10, jokers 15 (default). */
function value(id) {
  if (isJoker(id)) return 15;
  const { rank } = decode(id);
  if (rank === 1) return 11;
  return Math.min(rank, 10);
}

module.exports = { MIN_CARD, MAX_CARD, isCard, isJoker, decode, text, value };
