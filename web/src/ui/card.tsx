import { cardName, cardSvg } from "../cards";
import { t } from "../i18n";

interface Props {
  id: number | null; selected?: boolean; onClick?: () => void; small?: boolean;
  drag?: string; label?: string; disabled?: boolean; staged?: boolean;
  /** A word shown on the card and added to its name: "new" (just drawn), "taken" (from the pile). */
  mark?: string;
  /** What a joker on the table stands for, shown under it ("= 7♥") and in its name. */
  standsFor?: string;
}

/** A card face (a button when it can be clicked); `drag` is put on the drag data as "kind:id". */
export function Card({ id, selected, onClick, small, drag, label, disabled, staged, mark, standsFor }: Props) {
  const tx = t();
  const plain = label ?? (id === null ? "" : cardName(id));
  const name = standsFor ? tx.jokerAs(standsFor) : mark ? tx.marked(plain, mark) : plain;
  const cls = `card${small ? " small" : ""}${selected ? " selected" : ""}${staged ? " staged" : ""}${mark ? " marked" : ""}`;
  const svg = { __html: cardSvg(id) };
  const onDragStart = drag ? (e: DragEvent) => e.dataTransfer?.setData("text/plain", drag) : undefined;
  const face = !onClick ? <span class={cls} role="img" aria-label={name} data-mark={mark} dangerouslySetInnerHTML={svg} />
    : <button type="button" class={cls} aria-label={name} aria-pressed={selected} disabled={disabled} data-mark={mark}
      draggable={!!drag} onDragStart={onDragStart} onClick={onClick} dangerouslySetInnerHTML={svg} />;
  return standsFor ? <span class="stands-in">{face}<span class="as" aria-hidden="true">= <bdi dir="ltr">{standsFor}</bdi></span></span> : face;
}

/** Accept drops of "kind:id" strings. */
export function dropTarget(onDrop: (kind: string, id: number) => void) {
  return {
    onDragOver: (e: DragEvent) => e.preventDefault(),
    onDrop: (e: DragEvent) => {
      e.preventDefault();
      e.stopPropagation(); // the innermost target only: a staged group inside the staging area
      const [kind, id] = (e.dataTransfer?.getData("text/plain") ?? "").split(":");
      if (kind) onDrop(kind, Number(id));
    },
  };
}
