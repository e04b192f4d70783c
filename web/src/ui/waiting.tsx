import { useEffect, useState } from "preact/hooks";
import { refusal, rooms } from "../api";
import { BotLevel, SeatKind, type RoomInfo } from "../gen/hand/v1/room_pb";
import { mode, num, t } from "../i18n";
import { forgetSeat } from "../session";
import { Bubble, QuickChat } from "./chat";
import { go } from "./lobby";

/** The room before its match: the join code and an invite link to share (#/join/<code>), the seats,
 * the host's bots and start, Leave; who came and went. Its errors live here and go with it when the
 * match starts (the table's own alert is for moves). */
export function Waiting({ roomId, token, room, mySeat, log, name }: {
  roomId: string; token: string; room: RoomInfo; mySeat?: number; log: (() => string)[]; name: (s?: number) => string;
}) {
  const tx = t();
  const [error, setError] = useState("");
  const [level, setLevel] = useState(BotLevel.BEGINNER);
  const [copied, setCopied] = useState(false);
  useEffect(() => setCopied(false), [room.joinCode]);
  const host = mySeat !== undefined && mySeat === room.hostSeat;
  // ?seed=N deals a fixed match (tournaments, tests: StartMatchRequest.seed); unset = random
  const seed = new URLSearchParams(location.search).get("seed");
  const startMatch = () => { setError(""); rooms.startMatch({ roomId, seatToken: token, seed: seed ? BigInt(seed) : undefined })
    .catch((e) => setError(refusal(e))); };
  const fill = () => { setError(""); rooms.fillWithBots({ roomId, seatToken: token, level }).catch((e) => setError(refusal(e))); };
  const leave = () => rooms.leaveRoom({ roomId, seatToken: token })
    .then(() => { forgetSeat(roomId); go("/"); }, (e) => setError(refusal(e)));
  const link = `${location.origin}${location.pathname}${location.search}#/join/${room.joinCode}`;
  const copy = () => navigator.clipboard?.writeText(link).then(() => setCopied(true), () => {});
  return <main class="waiting panel">
    {error && <p role="alert" class="error">{error}</p>}
    <h2>{tx.waiting}</h2>
    <p>{tx.joinCode}: <strong class="code">{room.joinCode}</strong> · <span class="mode" title={mode(room.preset)[1]}>{mode(room.preset)[0]}</span>
      {" · "}<a href={`#/rules/${room.preset || "hand"}`}>{tx.rules}</a></p>
    {room.joinCode && <p class="share row"><label>{tx.shareLink}<input readOnly value={link} onFocus={(e) => e.currentTarget.select()} /></label>
      <button type="button" onClick={copy}>{copied ? tx.copied : tx.copy}</button></p>}
    <QuickChat roomId={roomId} token={token} room={room} mySeat={mySeat} />
    <ul class="seats">{room.seats.map((s) => <li>
      {tx.seat} {num((s.seat ?? 0) + 1)}: {s.kind === SeatKind.EMPTY ? <em>{tx.empty}</em> : name(s.seat) || tx.bot}
      {s.kind === SeatKind.BOT && ` (${tx.bot})`}{s.seat === room.hostSeat && ` · ${tx.host}`}{s.seat === mySeat && ` · ${tx.you}`}
      {s.seat !== mySeat && <Bubble roomId={roomId} seat={s.seat} name={name(s.seat)} />}
    </li>)}</ul>
    <div class="row">
      {host && <>
        <label>{tx.level}<select value={level} onChange={(e) => setLevel(Number(e.currentTarget.value))}>
          <option value={BotLevel.BEGINNER}>{tx.beginner}</option>
          <option value={BotLevel.MIDDLE}>{tx.middle}</option>
          <option value={BotLevel.STRONG}>{tx.strong}</option>
          <option value={BotLevel.EXPERT}>{tx.expert}</option>
        </select></label>
        <button type="button" onClick={fill}>{tx.fillBots}</button>
        <button type="button" class="primary" onClick={startMatch}>{tx.start}</button>
      </>}
      {mySeat !== undefined && <button type="button" onClick={leave}>{tx.leave}</button>}
    </div>
    {/* who came and went while the room waits (role "log": lines, not a second list beside the seats) */}
    <div class="log" role="log" aria-label="log">{log.slice(-8).map((l) => <div>{l()}</div>)}</div>
  </main>;
}
