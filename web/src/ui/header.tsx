import { getLang, t } from "../i18n";
import { MuteButton } from "./mute";

/** Line icons drawn here (no icon font): the lobby (a table), tournaments (a cup), the leaderboard (a podium). */
const ICONS: Record<string, string> = {
  lobby: "M3 10h18M6 10v8M18 10v8M5 6h14l2 4H3z",
  tournaments: "M8 4h8v5a4 4 0 0 1-8 0zM8 6H5a3 3 0 0 0 3 4M16 6h3a3 3 0 0 1-3 4M12 13v4M8 20h8M10 17h4",
  leaders: "M4 20v-6h5v6M9 20V9h6v11M15 20v-8h5v8M3 20h18",
};

function Icon({ d }: { d: string }) {
  return <svg viewBox="0 0 24 24" width="22" height="22" aria-hidden="true" fill="none" stroke="currentColor"
    stroke-width="2" stroke-linecap="round" stroke-linejoin="round"><path d={d} /></svg>;
}

/** A page link: its icon and its name; on a phone only the icon shows (the name stays its accessible name). */
function NavLink({ href, icon, label }: { href: string; icon: string; label: string }) {
  return <a href={href} aria-label={label} title={label}><Icon d={ICONS[icon]} /><span class="label">{label}</span></a>;
}

/** The page's header: the title, the pages, the mute and the language switch — one line on a 390 px
 * phone, every target at least 44 px (app.css). */
export function Header({ onFlip }: { onFlip: () => void }) {
  const tx = t();
  return <header>
    <h1><a href="#/">{tx.title}</a></h1>
    <nav>
      <NavLink href="#/" icon="lobby" label={tx.lobby} />
      <NavLink href="#/tournaments" icon="tournaments" label={tx.tournaments} />
      <NavLink href="#/leaders" icon="leaders" label={tx.leaderboard} />
      <MuteButton />
      <button type="button" class="lang" onClick={onFlip} aria-label={tx.language} title={tx.language}>
        <span class="label">{tx.language}</span><span class="short" aria-hidden="true">{getLang() === "ar" ? "EN" : "ع"}</span>
      </button>
    </nav>
  </header>;
}
