// How the page names a seat: the player's own name, and for the room's bots ("bot-2" on the wire,
// hand_room's decide.py) "Bot 2" / "روبوت ٢" in the page's language.
import { SeatKind, type RoomInfo } from "./gen/hand/v1/room_pb";
import { num, t } from "./i18n";

/** A seat's display name ("" for no seat; "#n" for a seat with no name). */
export function seatName(room: RoomInfo | undefined, s?: number): string {
  if (s === undefined) return "";
  const rs = room?.seats[s];
  return displayName(rs?.name ?? "", rs?.kind === SeatKind.BOT) || `#${num(s + 1)}`;
}

/** A name as the server sends it; a bot seat's "bot-<n>" translated. */
export function displayName(name: string, bot: boolean): string {
  const m = bot ? /^bot-(\d+)$/.exec(name) : null;
  return m ? t().botName(Number(m[1])) : name;
}
