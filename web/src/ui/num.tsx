import { num } from "../i18n";

/** A number in the page's digits, in an LTR isolate: "-44" / "-٤٤" read the same way round in
 * right-to-left text (docs/web-client.md, "Numbers"). */
export function Num({ v, fraction }: { v: number | bigint | undefined; fraction?: number }) {
  if (v === undefined) return null;
  return <bdi dir="ltr" class="num">{num(v, fraction)}</bdi>;
}
