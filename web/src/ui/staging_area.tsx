import type { Dispatch, StateUpdater } from "preact/hooks";
import { MeldKind } from "../gen/hand/v1/state_pb";
import { StagingColour, type SeatView, type StagingEvaluation } from "../gen/hand/v1/views_pb";
import { num, t } from "../i18n";
import { Card, dropTarget } from "./card";

const colourName = (c: StagingColour) => (c === StagingColour.GREEN ? "green" : c === StagingColour.RED ? "red" : "neutral");

/** The evaluation if it is of these very groups (not one still on its way for an earlier arrangement). */
export function freshFor(ev: StagingEvaluation | undefined, groups: number[][]): StagingEvaluation | undefined {
  return ev && ev.verdicts.length === groups.length
    && ev.verdicts.every((v, i) => v.cards.length === groups[i].length && v.cards.every((c) => groups[i].includes(c))) ? ev : undefined;
}

/** Why "Lay melds" cannot be sent now (docs/rules.md §5, §7, §11), or "" when it can: only on the
 * player's own turn after the draw, every group green, the opening's threshold reached (a Hand below
 * it only where `hand_needs_threshold` is false and the groups leave at most one card). No evaluation
 * of these groups yet (on its way): blocked without a reason. */
export function layBlock(view: SeatView, groups: number[][], ev: StagingEvaluation | undefined, playStep: boolean): string | null {
  const tx = t();
  if (!groups.length) return "";
  if (!playStep) return tx.layNotNow;
  if (!ev) return "";
  if (ev.verdicts.some((v) => v.colour === StagingColour.RED)) return tx.layRed;
  if (ev.verdicts.some((v) => v.colour !== StagingColour.GREEN)) return tx.layGrey;
  const staged = groups.reduce((n, g) => n + g.length, 0);
  const handFinish = view.options?.handNeedsThreshold === false && staged >= view.hand.length - 1;
  if (ev.showCounter && ev.missing > 0 && !handFinish) return tx.layUnder(ev.missing, ev.threshold);
  return null;
}

/** The staging area (§11): candidate groups coloured by the rules service, the opening counter, the
 * colours explained; a card dropped on a group (or the selection added with its "+") joins that group,
 * dropped elsewhere in the area it starts a new one; "Lay melds" only when it can be accepted, else why not. */
export function StagingArea({ view, groups, setGroups, selected, setSelected, evaluation, playStep, onLay, onSuggest }: {
  view: SeatView; groups: number[][]; setGroups: Dispatch<StateUpdater<number[][]>>; selected: number[];
  setSelected: (s: number[]) => void; evaluation?: StagingEvaluation; playStep: boolean; onLay: () => void; onSuggest: () => void;
}) {
  const tx = t();
  /** `cards` into group `at` (-1: a new group), out of any other group. */
  const put = (cards: number[], at: number) => {
    if (!cards.length) return;
    setGroups((g) => {
      const target = at >= 0 ? g[at] : undefined;
      const rest = g.map((x) => (x === target ? x : x.filter((c) => !cards.includes(c))));
      const next = rest.map((x) => (x === target ? [...x.filter((c) => !cards.includes(c)), ...cards] : x)).filter((x) => x.length);
      return target ? next : [...next, cards];
    });
    setSelected([]);
  };
  const dragged = (id: number) => (selected.includes(id) ? selected : [id]);
  const ev = freshFor(evaluation, groups);
  const verdict = (i: number) => ev?.verdicts[i];
  const block = layBlock(view, groups, ev, playStep);
  const could = (i: number) => (verdict(i)?.possible ?? []).map((k) => (k === MeldKind.RUN ? tx.aRun : k === MeldKind.SET ? tx.aSet : ""))
    .filter(Boolean).join(` ${tx.or} `);
  return <section class="staging" aria-label={tx.staging} {...dropTarget((kind, id) => kind === "hand" && put(dragged(id), -1))}>
    <h3>{tx.staging}
      {ev?.showCounter && <span class="counter"> <bdi dir="ltr">{num(ev.total)} / {num(ev.threshold)}</bdi>
        {ev.missing > 0 && ` — ${tx.more(ev.missing)}`}</span>}
    </h3>
    <div class="groups">{groups.map((g, i) => {
      const colour = colourName(verdict(i)?.colour ?? StagingColour.NEUTRAL);
      const hint = colour === "neutral" && could(i) ? tx.couldBecome(could(i)) : "";
      return <div class={`group ${colour}`} aria-label={`${tx.staging} ${colour}`} title={hint || undefined}
        {...dropTarget((kind, id) => kind === "hand" && put(dragged(id), i))}>
        {g.map((c) => <Card id={c} small onClick={() => setGroups((all) => all.map((x, j) => (j === i ? x.filter((y) => y !== c) : x)).filter((x) => x.length))} />)}
        {selected.length > 0 && <button type="button" class="add" aria-label={tx.addToGroup(i + 1)} onClick={() => put(selected, i)}>+</button>}
        {hint && <span class="could">{hint}</span>}
      </div>;
    })}</div>
    {groups.length > 0 && <p class="legend"><span class="swatch green" /> {tx.legendGreen} <span class="swatch neutral" /> {tx.legendGrey}{" "}
      <span class="swatch red" /> {tx.legendRed}</p>}
    <div class="row">
      <button type="button" onClick={() => put(selected, -1)} disabled={!selected.length}>{tx.stage}</button>
      <button type="button" onClick={onSuggest}>{tx.suggest}</button>
      <button type="button" onClick={onLay} disabled={block !== null} aria-describedby={block ? "lay-why" : undefined}>{tx.layMelds}</button>
      <button type="button" onClick={() => setGroups([])} disabled={!groups.length}>{tx.clearStaging}</button>
    </div>
    {block && <p id="lay-why" class="why">{block}</p>}
  </section>;
}
