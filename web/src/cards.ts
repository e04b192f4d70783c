// Card ids (proto/hand/v1/cards.proto) and the SVG card faces, drawn here.
// WIRE_BASE is the id of the first card on the wire (engine id + WIRE_BASE).
export const WIRE_BASE = 1;
export const JOKERS = [104 + WIRE_BASE, 105 + WIRE_BASE];
export const SUITS = ["♠", "♥", "♦", "♣"];
export const RANKS = ["", "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];

export interface Face { id: number; joker: boolean; rank: number; suit: number; }

export function face(id: number): Face {
  const e = id - WIRE_BASE;
  if (e >= 104) return { id, joker: true, rank: 0, suit: -1 };
  const r = e % 52;
  return { id, joker: false, suit: Math.floor(r / 13), rank: (r % 13) + 1 };
}

export function cardName(id: number): string {
  const f = face(id);
  return f.joker ? "Joker" : `${RANKS[f.rank]}${SUITS[f.suit]}`;
}

/** What a joker stands for (StandIn: rank 1..13, suit 1..4 or 0 while undetermined): "7♥", "7". */
export function standInName(rank: number, suit: number): string {
  return `${RANKS[rank] ?? ""}${suit > 0 ? SUITS[suit - 1] : ""}`;
}

export function sortBySuit(ids: number[]): number[] {
  return [...ids].sort((a, b) => { const x = face(a), y = face(b);
    return x.joker !== y.joker ? (x.joker ? 1 : -1) : x.suit - y.suit || x.rank - y.rank || a - b; });
}

export function sortByRank(ids: number[]): number[] {
  return [...ids].sort((a, b) => { const x = face(a), y = face(b);
    return x.joker !== y.joker ? (x.joker ? 1 : -1) : x.rank - y.rank || x.suit - y.suit || a - b; });
}

const red = (s: number) => s === 1 || s === 2;

/** One card face (or its back) as an SVG string, 60×84 units. */
export function cardSvg(id: number | null): string {
  if (id === null) {
    return `<svg viewBox="0 0 60 84" xmlns="http://www.w3.org/2000/svg" aria-hidden="true"><rect x="1" y="1" width="58" height="82" rx="6" fill="#fff" stroke="#555"/><rect x="5" y="5" width="50" height="74" rx="4" fill="#1d4e89"/><path d="M5 5 L55 79 M55 5 L5 79" stroke="#3f74b5" stroke-width="3"/><circle cx="30" cy="42" r="10" fill="#f3c13a"/></svg>`;
  }
  const f = face(id);
  if (f.joker) {
    return `<svg viewBox="0 0 60 84" xmlns="http://www.w3.org/2000/svg" aria-hidden="true"><rect x="1" y="1" width="58" height="82" rx="6" fill="#fff" stroke="#555"/><text x="6" y="16" font-size="11" font-weight="700" fill="#7b2cbf">JK</text><path d="M30 24 l5 10 11 1 -8 8 3 11 -11 -6 -11 6 3 -11 -8 -8 11 -1z" fill="#7b2cbf"/><text x="30" y="72" font-size="9" text-anchor="middle" fill="#7b2cbf" font-weight="700">JOKER</text></svg>`;
  }
  const colour = red(f.suit) ? "#c62828" : "#111";
  const r = RANKS[f.rank], s = SUITS[f.suit];
  const centre = f.rank > 10
    ? `<rect x="14" y="22" width="32" height="40" rx="3" fill="none" stroke="${colour}"/><text x="30" y="50" font-size="20" text-anchor="middle" fill="${colour}" font-weight="700">${r}</text>`
    : `<text x="30" y="54" font-size="28" text-anchor="middle" fill="${colour}">${s}</text>`;
  return `<svg viewBox="0 0 60 84" xmlns="http://www.w3.org/2000/svg" aria-hidden="true"><rect x="1" y="1" width="58" height="82" rx="6" fill="#fff" stroke="#555"/><text x="5" y="15" font-size="13" font-weight="700" fill="${colour}">${r}</text><text x="5" y="27" font-size="12" fill="${colour}">${s}</text>${centre}<g transform="rotate(180 30 42)"><text x="5" y="15" font-size="13" font-weight="700" fill="${colour}">${r}</text><text x="5" y="27" font-size="12" fill="${colour}">${s}</text></g></svg>`;
}
