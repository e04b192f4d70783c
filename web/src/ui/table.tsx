import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { owners, refusal, rooms } from "../api";
import { JOKERS, sortByRank, sortBySuit, standInName } from "../cards";
import { takeDuty } from "../duty";
import { play } from "../sound";
import type { Update } from "../events";
import { RoomStatus, SeatKind, type RoomInfo } from "../gen/hand/v1/room_pb";
import type { RoundResult } from "../gen/hand/v1/state_pb";
import { TurnPhase } from "../gen/hand/v1/state_pb";
import { TakeReturn } from "../gen/hand/v1/options_pb";
import type { SeatView, StagingEvaluation } from "../gen/hand/v1/views_pb";
import type { Meld } from "../gen/hand/v1/state_pb";
import { mode, num, t } from "../i18n";
import { seatName } from "../names";
import { pauseUntilOnline, unreachable } from "../owner";
import { follow, loadSeat, newId } from "../session";
import { evaluate, suggest } from "../staging";
import { Card, dropTarget } from "./card";
import { StagingArea } from "./staging_area";
import { ScoreSheet } from "./sheet";
import { heard } from "../chat";
import { Bubble, QuickChat } from "./chat";
import { TurnTimer } from "./timer";
import { AwayBanner } from "./away";
import { Waiting } from "./waiting";
import { Seating } from "./seating";
import { NextRound, nextRoundDealt } from "./next_round";
import { Log, MySeat, PileHistory } from "./table_parts";

type ActionInit = Parameters<typeof rooms.act>[0]["action"];

/** What a joker of a meld on the table stands for (Meld.stand_ins), else undefined. */
function standIn(m: Meld, card: number): string | undefined {
  const s = JOKERS.includes(card) ? m.standIns.find((x) => x.joker === card) : undefined;
  return s && s.rank ? standInName(s.rank, s.suit) : undefined;
}

export function Table({ roomId, spectate }: { roomId: string; spectate: boolean }) {
  const tx = t();
  const seat = spectate ? null : loadSeat(roomId);
  const token = seat?.token ?? "";
  const [view, setView] = useState<SeatView | undefined>();
  const [room, setRoom] = useState<RoomInfo | undefined>();
  const [log, setLog] = useState<(() => string)[]>([]);
  const [online, setOnline] = useState(true);
  const [error, setError] = useState("");
  const [selected, setSelected] = useState<number[]>([]);
  const [groups, setGroups] = useState<number[][]>([]);
  const [evaluation, setEvaluation] = useState<StagingEvaluation | undefined>();
  const [order, setOrder] = useState<"suit" | "rank">("suit");
  const [scored, setScored] = useState<{ roundNo: number; result: RoundResult; room?: RoomInfo } | null>(null);
  const [backSeats, setBackSeats] = useState<number[]>([]); // came back after being away
  // after an accepted move, its last seq: the seat waits for its stream to show it before acting again
  const pending = useRef<bigint | null>(null);
  const seen = useRef(-1n);
  const [, setPendingTick] = useState(0);
  // a draw or discard shown at once, until the stream confirms it (or the server refuses it)
  const [optimistic, setOptimistic] = useState<{ draw?: boolean; discard?: number } | null>(null);
  // an action on its way (one at a time); `retrying`: the network failed it and it is being sent again
  const [inFlight, setInFlight] = useState(false);
  const [retrying, setRetrying] = useState(false);
  const gone = useRef(new AbortController()); // the table left: no more retries
  useEffect(() => () => gone.current.abort(), []);

  useEffect(() => follow(roomId, token, (u: Update) => {
    seen.current = u.next - 1n;
    if (pending.current !== null && seen.current >= pending.current) {
      pending.current = null;
      setPendingTick((n) => n + 1);
      setOptimistic(null);
    }
    if (u.view) setView(u.view);
    if (u.room) setRoom(u.room);
    if (u.line()) setLog((l) => [...l.slice(-199), u.line]);
    heard(roomId, u); // quick chat: bubbles (ui/chat.tsx)
    const who = u.seat;
    if (who !== undefined && u.kind === "seat_back") setBackSeats((b) => [...b.filter((x) => x !== who), who]);
    if (who !== undefined && u.kind === "seat_away") setBackSeats((b) => b.filter((x) => x !== who));
    if (u.result) { setScored({ roundNo: u.roundNo ?? 0, result: u.result, room: u.room }); play("end"); }
    // a finished match keeps its result: after a reload the snapshot brings the last round's result
    else if (u.room?.status === RoomStatus.FINISHED && u.view?.result) {
      const result = u.view.result, roundNo = u.view.roundNo;
      setScored((s) => s ?? { roundNo, result, room: u.room });
    }
    if (u.seq !== undefined) (window as any).__handSeq = u.seq; // for the click-to-shown benchmark
  }, setOnline), [roomId, token]);

  const hand = useMemo(() => {
    const held = (view?.hand ?? []).filter((c) => c !== optimistic?.discard);
    return order === "suit" ? sortBySuit(held) : sortByRank(held);
  }, [view, order, optimistic]);
  // keep the selection and the staging area to cards still held
  useEffect(() => {
    const held = new Set(view?.hand ?? []);
    setSelected((s) => s.filter((c) => held.has(c)));
    setGroups((g) => g.map((x) => x.filter((c) => held.has(c))).filter((x) => x.length > 0));
  }, [view]);
  useEffect(() => {
    if (!view || view.seat === undefined || groups.length === 0) { setEvaluation(undefined); return; }
    let live = true;
    evaluate(view, groups).then((e) => live && setEvaluation(e), () => live && setEvaluation(undefined));
    return () => { live = false; };
  }, [groups, view]);

  const mySeat = view?.seat ?? seat?.seat;
  const turn = view?.turn;
  const myTurn = !!turn && turn.seat === mySeat && !view?.result && !spectate && pending.current === null && !inFlight;
  const turnIsMine = !!turn && turn.seat === mySeat && !view?.result && !spectate;
  useEffect(() => { if (turnIsMine) play("turn"); }, [turnIsMine, view?.roundNo, view?.turnNo]); // a sound when the turn comes
  const name = (s?: number) => seatName(room, s);

  /** One move at the room's owner. A network failure (offline, the server out of reach) is not the
   * player's error: "Reconnecting…" is shown and the SAME request, the same action id, is sent again
   * with backoff (sooner when the browser is back online) until it gets an answer; the room applies an
   * action id once (a retry of a move it already applied answers as the first did). */
  const act = async (action: ActionInit, shown: { draw?: boolean; discard?: number } | null = null) => {
    setError("");
    setOptimistic(shown);
    setInFlight(true);
    const req = { roomId, seatToken: token, actionId: newId(), action };
    try {
      for (let wait = 250; ; wait = Math.min(wait * 2, 4000)) {
        try {
          const res = await owners.act(req); // at the room's owner
          if (res.lastSeq > seen.current) { pending.current = res.lastSeq; setPendingTick((n) => n + 1); }
          else setOptimistic(null);
          return true;
        } catch (e) {
          if (!unreachable(e) || gone.current.signal.aborted) { setOptimistic(null); setError(refusal(e)); return false; }
          setRetrying(true);
          await pauseUntilOnline(wait * (1 + Math.random() * 0.2), gone.current.signal);
        }
      }
    } finally { setRetrying(false); setInFlight(false); }
  };
  const toggle = (c: number) => setSelected((s) => (s.includes(c) ? s.filter((x) => x !== c) : [...s, c]));
  const draw = () => act({ action: { case: "drawStock", value: {} } }, { draw: true });
  const take = () => act({ action: { case: "takeDiscard", value: {} } });
  const giveBack = () => act({ action: { case: "returnTake", value: {} } });
  const discard = (card: number) => act({ action: { case: "discard", value: { card } } }, { discard: card });
  const layOff = (meldId: number, cards: number[]) => act({ action: { case: "layOff", value: { meldId, cards } } })
    .then((ok) => ok && setSelected([]));
  const retrieve = (meldId: number, joker: number, cards: number[]) =>
    act({ action: { case: "retrieveJoker", value: { meldId, joker, cards } } }).then((ok) => ok && setSelected([]));
  const layMelds = () => act({ action: { case: "layMelds", value: { melds: groups.map((cards) => ({ cards })) } } })
    .then((ok) => ok && setGroups([]));
  const doSuggest = async () => {
    if (!view) return;
    try {
      const s = await suggest(view);
      if (s) setGroups(s.melds.map((m) => m.cards));
    } catch (e) { setError(refusal(e)); }
  };

  if (!room) return <main class="table"><p role="status">…</p></main>;

  if (room.status === RoomStatus.WAITING) {
    return <Waiting roomId={roomId} token={token} room={room} mySeat={spectate ? undefined : mySeat} log={log} name={name} />;
  }

  const canReturn = myTurn && turn?.taken !== undefined && !turn.takeFinal && view?.options?.takeReturn !== TakeReturn.NEVER;
  const drawStep = myTurn && turn?.phase === TurnPhase.DRAW && !turn.openingDiscard;
  const playStep = myTurn && !drawStep;
  const duty = myTurn || inFlight ? takeDuty(view) : "";
  const markOf = (c: number) => (c === turn?.taken ? tx.takenMark : c === turn?.drawn ? tx.drawnMark : undefined);
  const top = optimistic?.discard ?? (view?.pile.length ? view.pile[view.pile.length - 1] : null);
  const onMeldClick = (meldId: number, card: number) => {
    if (!selected.length) return;
    if (JOKERS.includes(card)) retrieve(meldId, card, selected);
    else layOff(meldId, selected);
  };
  const seatState = (s?: number) => {
    const rs = s === undefined ? undefined : room.seats[s];
    if (!rs) return "";
    if (rs.kind === SeatKind.BOT) return tx.bot;
    if (rs.away) return tx.away;
    return s !== undefined && backSeats.includes(s) ? tx.back : tx.playing;
  };

  return <main class="table">
    <div class="status-line">
      <p role="status" class={myTurn ? "mine" : ""}>
        {spectate ? `${tx.spectating} · ` : ""}
        {view?.result ? "" : turn ? (myTurn || (inFlight && turn.seat === mySeat) ? tx.yourTurn : tx.turnOf(name(turn.seat))) : ""}
        {turn && !view?.result && <TurnTimer deadline={room.turnDeadline} mine={!spectate && turn.seat === mySeat} />}
      </p>
      <span class="round">{tx.round} {num(room.roundNo)} · <a href={`#/rules/${room.preset || "hand"}`}>{tx.rules}</a></span>
    </div>
    {(retrying || !online) && <p class="reconnecting" role="status">{tx.reconnecting}</p>}
    {!spectate && mySeat !== undefined && room.seats[mySeat]?.away && room.status === RoomStatus.PLAYING
      && <AwayBanner roomId={roomId} token={token} />}
    <QuickChat roomId={roomId} token={token} room={room} mySeat={spectate ? undefined : mySeat} />
    {error && <p role="alert" class="error">{error}{duty && ` ${duty}`}</p>}
    <Seating room={room} mySeat={spectate ? undefined : mySeat} turnSeat={view?.result ? undefined : turn?.seat} name={name} />
    <section class="opponents" aria-label="seats">
      {view?.seats.map((s) => s.seat === mySeat ? null : <div class={`opponent${turn?.seat === s.seat ? " turn" : ""}`} aria-label={name(s.seat)}>
        <strong>{name(s.seat)}</strong><Bubble roomId={roomId} seat={s.seat} name={name(s.seat)} />
        <span class="badge">{seatState(s.seat)}</span>{s.opened && <span class="badge open">{tx.opened}</span>}
        <div class="backs">{Array.from({ length: Math.min(s.handSize, 14) }, () => <Card id={null} small label="" />)}</div>
        <span>{tx.cards(s.handSize)}</span>
      </div>)}
    </section>
    <section class="centre">
      <div class="stock">
        <h3>{tx.stock} ({num(view?.stockSize ?? 0)})</h3>
        <Card id={null} label={tx.stock} onClick={drawStep ? draw : undefined} />
      </div>
      <div class="pile" {...dropTarget((kind, id) => kind === "hand" && playStep && discard(id))}>
        <h3>{tx.pile} ({num(view?.pile.length ?? 0)})</h3>
        {top !== null ? <Card key={top} id={top} drag={`pile:${top}`} onClick={drawStep ? take : undefined} /> : <div class="slot" />}
        <PileHistory pile={view?.pile ?? []} />
      </div>
    </section>
    <section class="melds" aria-label={tx.table}>
      <h3>{tx.table}</h3>
      {view?.melds.map((m) => <div class="meld" aria-label={`${tx.table} ${m.id} ${tx.meldBy(name(m.owner))}`}
        {...dropTarget((kind, id) => kind === "hand" && layOff(m.id, selected.includes(id) ? selected : [id]))}>
        <span class="owner">{tx.meldBy(name(m.owner))}</span>
        {m.cards.map((c) => <Card id={c} small onClick={myTurn ? () => onMeldClick(m.id, c) : undefined}
          standsFor={standIn(m, c)} />)}
      </div>)}
    </section>
    {view && mySeat !== undefined && !spectate && <>
      <StagingArea view={view} groups={groups} setGroups={setGroups} selected={selected} setSelected={setSelected}
        evaluation={evaluation} playStep={playStep} onLay={layMelds} onSuggest={doSuggest} />
      {/* the dock: the hand and every move of a turn; on a phone it stays at the bottom of the screen */}
      <section class="hand dock" aria-label={tx.yourHand} {...dropTarget((kind) => kind === "pile" && drawStep && take())} aria-busy={pending.current !== null || inFlight} data-held={view.hand.length}>
        <div class="dock-head"><h3>{tx.yourHand} ({num(hand.length + (optimistic?.draw ? 1 : 0))})</h3>
          <MySeat name={name(mySeat)} state={seatState(mySeat)} opened={!!view.seats.find((s) => s.seat === mySeat)?.opened} /></div>
        {duty && <p class="duty">{duty}</p>}
        <div class="cards">{hand.map((c) => <Card id={c} selected={selected.includes(c)} staged={groups.some((g) => g.includes(c))}
          onClick={() => toggle(c)} drag={`hand:${c}`} mark={markOf(c)} />)}
          {optimistic?.draw && <Card id={null} label={tx.draw} />}</div>
        <div class="row actions">
          <button type="button" onClick={draw} disabled={!drawStep}>{tx.draw}</button>
          <button type="button" onClick={take} disabled={!drawStep || top === null}>{tx.take}</button>
          {canReturn && <button type="button" onClick={giveBack}>{tx.returnTake}</button>}
          <button type="button" class="primary" onClick={() => selected.length === 1 && discard(selected[0]).then((ok) => ok && setSelected([]))}
            disabled={!playStep || selected.length !== 1}>{tx.discard}</button>
          <button type="button" onClick={() => setOrder("suit")}>{tx.sortSuit}</button>
          <button type="button" onClick={() => setOrder("rank")}>{tx.sortRank}</button>
        </div>
        <p class="hint">{tx.hint}</p>
      </section>
    </>}
    <Log lines={log} />
    {scored && <ScoreSheet roomId={roomId} roundNo={scored.roundNo} result={scored.result} room={room}
      minSeq={seen.current >= 0n ? seen.current : undefined}
      over={room.status === RoomStatus.FINISHED} onClose={() => setScored(null)}>
      {nextRoundDealt(room, scored.roundNo, view) && <NextRound room={room} view={view} mySeat={spectate ? undefined : mySeat}
        name={name} onBack={() => setScored(null)} />}
    </ScoreSheet>}
  </main>;
}
