// A preset's effective options as the engine resolves them (RulesService.StartRound deals a round
// under it; its RoundState.options is every option set), asked once per preset and kept: the rules
// screen's sentences and the lobby's seat counts come from them.
import { rules } from "./api";
import type { RuleOptions } from "./gen/hand/v1/options_pb";

const known = new Map<string, Promise<RuleOptions | undefined>>();

/** Four seats, so that every preset (a partnership one included) can be dealt. */
export function optionsOf(preset: string): Promise<RuleOptions | undefined> {
  let p = known.get(preset);
  if (!p) {
    p = rules.startRound({ rules: { preset }, seats: 4, deal: { case: "seed", value: 1n } }).then((r) => r.state?.options);
    p.catch(() => known.delete(preset)); // asked again next time
    known.set(preset, p);
  }
  return p;
}

/** The seat counts a preset allows (docs/rules.md §2): exactly 4 in partnership, else 2..max_players. */
export function seatCounts(o: RuleOptions | undefined): number[] {
  if (!o) return [2, 3, 4];
  if (o.partnership) return [4];
  return Array.from({ length: Math.max(2, o.maxPlayers ?? 4) - 1 }, (_, i) => i + 2);
}
