import { useEffect, useState } from "preact/hooks";
import { refusal, rooms } from "../api";
import { RoomVisibility } from "../gen/hand/v1/room_pb";
import type { RuleOptions } from "../gen/hand/v1/options_pb";
import type { RoomSummary } from "../gen/hand/v1/room_service_pb";
import { mode, num, t } from "../i18n";
import { optionsOf, seatCounts } from "../presets";
import { playerId, saveSeat, savedSeats } from "../session";
import { MyTables, PlayingTables, PublicTables } from "./lobby_tables";
import { PlayNow } from "./play_now";

export const PRESETS = ["hand", "saudi", "partnership", "saudi-partnership", "eram-hand", "eram-saudi",
  "eram-partnership", "dananeer", "r2019"];

export function go(path: string): void { location.hash = path; }

export function playerName(): string { return localStorage.getItem("hand.name") || ""; }

/** The lobby; `joinCode`: opened from a room's share link (#/join/<code>), the code filled in. */
export function Lobby({ joinCode = "" }: { joinCode?: string }) {
  const tx = t();
  const [list, setList] = useState<RoomSummary[]>([]);
  const [running, setRunning] = useState<RoomSummary[]>([]); // public matches being played, to watch
  const [error, setError] = useState("");
  const [name, setName] = useState(playerName() || "Player");
  const [preset, setPreset] = useState("hand");
  const [roundsN, setRounds] = useState(1);
  const [turn, setTurn] = useState(30);
  const [seatsN, setSeats] = useState(4);
  const [vis, setVis] = useState("public");
  const [code, setCode] = useState(joinCode);
  // the seat counts the mode allows, from the engine's options for its preset (presets.ts)
  const [options, setOptions] = useState<RuleOptions | undefined>();
  useEffect(() => {
    let live = true;
    setOptions(undefined);
    optionsOf(preset).then((o) => live && setOptions(o), () => {});
    return () => { live = false; };
  }, [preset]);
  const counts = seatCounts(options);
  useEffect(() => { if (options && !counts.includes(seatsN)) setSeats(counts.includes(4) ? 4 : counts[counts.length - 1]); }, [options]);

  useEffect(() => {
    let live = true;
    const load = () => {
      rooms.listRooms({ pageSize: 50 }).then((r) => live && setList(r.rooms), (e) => live && setError(refusal(e)));
      rooms.listRooms({ pageSize: 20, playing: true }).then((r) => live && setRunning(r.rooms), () => {});
    };
    load();
    const timer = setInterval(load, 3000);
    return () => { live = false; clearInterval(timer); };
  }, []);

  const remember = () => localStorage.setItem("hand.name", name);
  const create = async (e: Event) => {
    e.preventDefault();
    remember();
    try {
      const r = await rooms.createRoom({ rules: { preset }, rounds: roundsN, turnSeconds: turn, seatCount: seatsN,
        visibility: vis === "public" ? RoomVisibility.PUBLIC : RoomVisibility.PRIVATE, playerName: name, playerId: playerId() });
      saveSeat({ roomId: r.room!.roomId, token: r.seatToken, seat: r.seat ?? 0, name });
      go(`/room/${r.room!.roomId}`);
    } catch (err) { setError(refusal(err)); }
  };
  const join = async (target: { case: "roomId" | "joinCode"; value: string }) => {
    remember();
    try {
      const r = await rooms.joinRoom({ target, playerName: name, playerId: playerId() });
      saveSeat({ roomId: r.room!.roomId, token: r.seatToken, seat: r.seat ?? 0, name });
      go(`/room/${r.room!.roomId}`);
    } catch (err) { setError(refusal(err)); }
  };

  return <main class="lobby">
    {error && <p role="alert" class="error">{error}</p>}
    <MyTables seats={savedSeats()} go={go} />
    <PlayNow name={name} preset={preset} seats={seatsN} onPlay={remember} go={go} />
    <section class="panel">
      <h2>{tx.createRoom}</h2>
      <form onSubmit={create} class="form">
        <label>{tx.yourName}<input value={name} onInput={(e) => setName(e.currentTarget.value)} maxLength={64} /></label>
        <label>{tx.mode}<select value={preset} onChange={(e) => setPreset(e.currentTarget.value)} aria-describedby="mode-desc">
          {PRESETS.map((p) => <option value={p}>{mode(p)[0]}</option>)}</select></label>
        <p id="mode-desc" class="mode-desc">{mode(preset)[1]} <a href={`#/rules/${preset}`}>{tx.rules}</a></p>
        <label>{tx.rounds}<select value={roundsN} onChange={(e) => setRounds(Number(e.currentTarget.value))}>
          {[1, 3, 5, 7, 9].map((n) => <option value={n}>{num(n)}</option>)}</select></label>
        <label>{tx.turnTime}<input type="number" min={5} max={300} value={turn} onInput={(e) => setTurn(Number(e.currentTarget.value))} /></label>
        <label>{tx.seats}<select value={seatsN} onChange={(e) => setSeats(Number(e.currentTarget.value))}>
          {counts.map((n) => <option value={n}>{num(n)}</option>)}</select></label>
        <fieldset><legend>{tx.visibility}</legend>
          <label><input type="radio" name="vis" checked={vis === "public"} onChange={() => setVis("public")} />{tx.public}</label>
          <label><input type="radio" name="vis" checked={vis === "private"} onChange={() => setVis("private")} />{tx.private}</label>
        </fieldset>
        <button type="submit" class="primary">{tx.create}</button>
      </form>
    </section>
    <section class={`panel${joinCode ? " invited" : ""}`}>
      <h2>{tx.joinByCode}</h2>
      <form class="form row" onSubmit={(e) => { e.preventDefault(); join({ case: "joinCode", value: code }); }}>
        <label>{tx.code}<input value={code} onInput={(e) => setCode(e.currentTarget.value)} maxLength={6} /></label>
        <button type="submit">{tx.join}</button>
      </form>
    </section>
    <PublicTables list={list} join={(roomId) => join({ case: "roomId", value: roomId })} go={go} />
    <PlayingTables list={running} go={go} />
  </main>;
}
