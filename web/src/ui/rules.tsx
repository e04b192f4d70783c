import { useEffect, useState } from "preact/hooks";
import { refusal } from "../api";
import { optionsOf } from "../presets";
import type { RuleOptions } from "../gen/hand/v1/options_pb";
import { mode, t } from "../i18n";
import { rulesOf } from "../rules_text";
import { PRESETS, go } from "./lobby";

/** The rules screen of one mode (#/rules/<preset>): its name and line, then its rules in sentences
 * (rules_text.ts) in the page's language; another mode can be chosen here. */
export function Rules({ preset }: { preset: string }) {
  const tx = t();
  const [options, setOptions] = useState<RuleOptions | undefined>();
  const [error, setError] = useState("");
  useEffect(() => {
    let live = true;
    setOptions(undefined);
    optionsOf(preset).then((o) => live && setOptions(o), (e) => live && setError(refusal(e)));
    return () => { live = false; };
  }, [preset]);
  const [name, line] = mode(preset);
  return <main class="rules panel">
    {error && <p role="alert" class="error">{error}</p>}
    <h2>{tx.rulesOf(name)}</h2>
    <p class="mode-desc">{line}</p>
    <label>{tx.mode}<select value={preset} onChange={(e) => go(`/rules/${e.currentTarget.value}`)}>
      {PRESETS.map((p) => <option value={p}>{mode(p)[0]}</option>)}</select></label>
    {options ? rulesOf(options).map(([heading, lines]) => <section aria-label={heading}>
      <h3>{heading}</h3>
      <ul>{lines.map((l) => <li>{l}</li>)}</ul>
    </section>) : !error && <p role="status">…</p>}
  </main>;
}
