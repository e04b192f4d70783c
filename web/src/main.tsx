import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { applyLang, getLang, setLang, t } from "./i18n";
import { Leaderboard } from "./ui/leaders";
import { Lobby, go } from "./ui/lobby";
import { Replay } from "./ui/replay";
import { Rules } from "./ui/rules";
import { Header } from "./ui/header";
import { Table } from "./ui/table";
import { TournamentPage } from "./ui/tournament";
import { Tournaments } from "./ui/tournaments";

function route(): string[] { return location.hash.replace(/^#\/?/, "").split("/").filter(Boolean); }

function App() {
  const [path, setPath] = useState(route());
  const [, setLangState] = useState(getLang());
  useEffect(() => { const on = () => setPath(route()); addEventListener("hashchange", on); return () => removeEventListener("hashchange", on); }, []);
  const tx = t();
  const [page, id, mode] = path;
  const flip = () => { const next = getLang() === "ar" ? "en" : "ar"; setLang(next); setLangState(next); };
  return <>
    <Header onFlip={flip} />
    {page === "room" && id ? <Table key={`${id}-${mode}`} roomId={id} spectate={mode === "watch"} />
      : page === "replay" && id ? <Replay roomId={id} />
      : page === "tournament" && id ? <TournamentPage key={id} id={id} />
      : page === "tournaments" ? <Tournaments />
      : page === "rules" ? <Rules preset={id || "hand"} />
      : page === "leaders" ? <Leaderboard />
      : page === "join" && id ? <Lobby key={id} joinCode={id} /> : <Lobby />}
  </>;
}

applyLang(getLang());
if (!location.hash) go("/");
render(<App />, document.getElementById("app")!);
