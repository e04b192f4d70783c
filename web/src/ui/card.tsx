import { cardName, cardSvg } from "../cards";

interface Props {
  id: number | null; selected?: boolean; onClick?: () => void; small?: boolean;
  drag?: string; label?: string; disabled?: boolean; staged?: boolean;
}

/** A card face (a button when it can be clicked); `drag` is put on the drag data as "kind:id". */
export function Card({ id, selected, onClick, small, drag, label, disabled, staged }: Props) {
  const name = label ?? (id === null ? "" : cardName(id));
  const cls = `card${small ? " small" : ""}${selected ? " selected" : ""}${staged ? " staged" : ""}`;
  const svg = { __html: cardSvg(id) };
  const onDragStart = drag ? (e: DragEvent) => e.dataTransfer?.setData("text/plain", drag) : undefined;
  if (!onClick) return <span class={cls} role="img" aria-label={name} dangerouslySetInnerHTML={svg} />;
  return <button type="button" class={cls} aria-label={name} aria-pressed={selected} disabled={disabled}
    draggable={!!drag} onDragStart={onDragStart} onClick={onClick} dangerouslySetInnerHTML={svg} />;
}

/** Accept drops of "kind:id" strings. */
export function dropTarget(onDrop: (kind: string, id: number) => void) {
  return {
    onDragOver: (e: DragEvent) => e.preventDefault(),
    onDrop: (e: DragEvent) => {
      e.preventDefault();
      const [kind, id] = (e.dataTransfer?.getData("text/plain") ?? "").split(":");
      if (kind) onDrop(kind, Number(id));
    },
  };
}
