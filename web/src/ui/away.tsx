import { useState } from "preact/hooks";
import { owners, refusal } from "../api";
import { REDIRECTED, movedTo } from "../owner";
import { t } from "../i18n";

/** RoomService.ComeBack at the room's owner (a ROOM_MOVED followed once, as for chat). */
async function comeBack(roomId: string, seatToken: string) {
  const req = { roomId, seatToken };
  try {
    return await owners.at(owners.ownerOf(roomId) || location.origin).comeBack(req);
  } catch (err) {
    const to = movedTo(err);
    if (to === null) throw err;
    return await owners.at(to || location.origin).comeBack(req, { headers: REDIRECTED });
  }
}

/** The player's own seat is away (RoomSeat.away: a bot plays every turn of it, so there is no turn
 * to act on): say so and offer "I'm back" (docs/decisions/0030-seating-and-coming-back.md). */
export function AwayBanner({ roomId, token }: { roomId: string; token: string }) {
  const tx = t();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState("");
  const back = async () => {
    setBusy(true);
    setError("");
    try { await comeBack(roomId, token); } catch (e) { setError(refusal(e)); } finally { setBusy(false); }
  };
  return <section class="away-banner panel" aria-label={tx.awayTitle}>
    <strong>{tx.awayTitle}</strong> <span>{tx.awayText}</span>
    <button type="button" class="primary" onClick={back} disabled={busy}>{tx.imBack}</button>
    {error && <p role="alert" class="error">{error}</p>}
  </section>;
}
