// Reaching the room's owner (docs/clients.md, "Reaching the room's owner"). A room's Act and Watch
// are served only by the room-service instance that owns it: every RoomInfo names it (owner.web_url),
// another instance refuses them with ROOM_MOVED and the owner's URL. So, per room, this page keeps the
// owner's browser URL (when it is not the page's own server), sends Act and Watch there, follows a
// ROOM_MOVED once (marked `hand-redirected: 1`) and keeps the new owner; an owner it cannot reach is
// set aside for a while and the call goes to the page's own server, marked, which forwards it.
// Every other call goes to the page's own server. OVERLOADED is retried after retry_after_ms.
import { Code, ConnectError, type Client, type Interceptor } from "@connectrpc/connect";
import { ErrorCode, RuleErrorSchema } from "./gen/hand/v1/errors_pb";
import type { RoomInfo } from "./gen/hand/v1/room_pb";
import type { RoomService, WatchResponse } from "./gen/hand/v1/room_service_pb";

type Rooms = Client<typeof RoomService>;
type ActInit = Parameters<Rooms["act"]>[0];
type WatchInit = Parameters<Rooms["watch"]>[0];

/** The mark of a call sent to the instance a ROOM_MOVED named, or to the page's own server after the
 * owner could not be reached: the instance serves it even if it does not own the room (it forwards). */
export const REDIRECTED: Record<string, string> = { "hand-redirected": "1" };
const DOWN_MS = 30_000; // an owner that could not be reached is not tried again for this long
const OVERLOAD_TRIES = 5;

function rule(err: unknown) { return ConnectError.from(err).findDetails(RuleErrorSchema)[0]; }

/** ROOM_MOVED: the owner's browser URL ("" when it serves no browsers); null for any other error. */
export function movedTo(err: unknown): string | null {
  const d = rule(err);
  return d?.code === ErrorCode.ROOM_MOVED ? (d.params["owner_web_url"] ?? "") : null;
}

/** No server answered: a refused connection, a name that does not resolve, a CORS refusal (fetch's
 * TypeError), or a proxy's 502/503 without a RuleError. */
export function unreachable(err: unknown): boolean {
  const e = ConnectError.from(err);
  if (rule(err)) return false;
  return e.code === Code.Unavailable || (e.code === Code.Unknown && e.cause instanceof TypeError);
}

/** OVERLOADED: how long to wait before the same request (same action id) is sent again; else null. */
export function retryAfterMs(err: unknown): number | null {
  const d = rule(err);
  if (d?.code !== ErrorCode.OVERLOADED) return null;
  const ms = Number(d.params["retry_after_ms"]);
  return Math.min(Math.max(Number.isFinite(ms) ? ms : 200, 10), 5000) * (1 + Math.random() * 0.2);
}

export function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => { clearTimeout(timer); resolve(); }, { once: true });
  });
}

/** A backoff that ends early when the browser says the network is back (the `online` event). */
export function pauseUntilOnline(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => { clearTimeout(timer); globalThis.removeEventListener?.("online", done); resolve(); };
    const timer = setTimeout(done, ms);
    globalThis.addEventListener?.("online", done, { once: true });
    signal?.addEventListener("abort", done, { once: true });
  });
}

/** Unary calls refused with OVERLOADED are sent again, the same request, after retry_after_ms. */
export const overloadRetry: Interceptor = (next) => async (req) => {
  for (let tries = 1; ; tries++) {
    try {
      return await next(req);
    } catch (err) {
      const wait = retryAfterMs(err);
      if (req.stream || wait === null || tries >= OVERLOAD_TRIES || req.signal.aborted) throw err;
      await pause(wait, req.signal);
    }
  }
};

const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);

/** A base URL without its trailing slash, and loopback spelled one way, so the page's own server is
 * recognised however the owner advertises it. */
export function normalise(url: string): string {
  try {
    const u = new URL(url);
    const host = LOOPBACK.has(u.hostname) ? "127.0.0.1" : u.hostname;
    return `${u.protocol}//${host}${u.port ? `:${u.port}` : ""}${u.pathname.replace(/\/+$/, "")}`;
  } catch {
    return "";
  }
}

export class Owners {
  private readonly byRoom = new Map<string, string>(); // room id → owner's base URL (never the page's own)
  private readonly down = new Map<string, number>(); // base URL → until when it is not tried
  private readonly clients = new Map<string, Rooms>();
  private readonly home: string;
  /** For the tests (window.__handOwners): redirects followed, fallbacks to the page's own server. */
  readonly stats = { redirects: 0, fallbacks: 0 };

  constructor(private readonly homeUrl: string, private readonly make: (base: string) => Rooms) {
    this.home = normalise(homeUrl);
  }

  /** The room client of a base URL (the page's own server: `at(location.origin)`). */
  at(base: string): Rooms {
    const key = normalise(base) || this.home;
    let c = this.clients.get(key);
    if (!c) { c = this.make(key === this.home ? this.homeUrl : key); this.clients.set(key, c); }
    return c;
  }

  /** Keep the owner that a RoomInfo names (an unset owner changes nothing). */
  learn(room: RoomInfo | undefined): void {
    if (room?.roomId && room.owner) this.keep(room.roomId, room.owner.webUrl);
  }

  /** Learns the owner from every unary answer that carries a RoomInfo (`room`). */
  readonly learner: Interceptor = (next) => async (req) => {
    const res = await next(req);
    if (!res.stream) this.learn((res.message as { room?: RoomInfo }).room);
    return res;
  };

  /** The owner kept for a room ("" = the page's own server). */
  ownerOf(roomId: string): string { return this.byRoom.get(roomId) ?? ""; }

  private keep(roomId: string, url: string): void {
    const u = normalise(url);
    if (!u || u === this.home) this.byRoom.delete(roomId);
    else this.byRoom.set(roomId, u);
  }

  /** Where a room's Act or Watch goes first, and whether it is marked. */
  private route(roomId: string): { base: string; marked: boolean } {
    const owner = this.byRoom.get(roomId);
    if (!owner) return { base: this.home, marked: false };
    if ((this.down.get(owner) ?? 0) > Date.now()) return { base: this.home, marked: true };
    return { base: owner, marked: false };
  }

  /** Where a failed call goes next (null: nowhere, the error is the caller's). */
  private after(roomId: string, base: string, marked: boolean, err: unknown): string | null {
    const to = marked ? null : movedTo(err);
    if (to !== null) {
      this.keep(roomId, to);
      this.stats.redirects++;
      return normalise(to) || this.home; // an owner that serves no browsers: ours forwards
    }
    if (base !== this.home && unreachable(err)) {
      this.down.set(base, Date.now() + DOWN_MS);
      this.stats.fallbacks++;
      return this.home;
    }
    return null;
  }

  /** A play-now call (FindMatch, GetTicket, CancelTicket) at the owner of its pool (`key`:
   * "mm:<preset>:<seats>"), which ROOM_MOVED names as for a room's Act. */
  async atPool<T>(key: string, call: (rooms: Rooms, headers?: Record<string, string>) => Promise<T>): Promise<T> {
    let { base, marked } = this.route(key);
    for (;;) {
      try {
        return await call(this.at(base), marked ? REDIRECTED : undefined);
      } catch (err) {
        const next = this.after(key, base, marked, err);
        if (next === null) throw err;
        base = next;
        marked = true;
      }
    }
  }

  /** Act at the room's owner. */
  async act(req: ActInit) {
    let { base, marked } = this.route(req.roomId ?? "");
    for (;;) {
      try {
        return await this.at(base).act(req, { headers: marked ? REDIRECTED : undefined });
      } catch (err) {
        const next = this.after(req.roomId ?? "", base, marked, err);
        if (next === null) throw err;
        base = next;
        marked = true;
      }
    }
  }

  /** Watch at the room's owner: a ROOM_MOVED or an unreachable owner before the first message is
   * followed as for Act; an error after it is the caller's (it resumes from its last seq + 1). */
  async *watch(req: WatchInit, signal: AbortSignal): AsyncGenerator<WatchResponse> {
    let { base, marked } = this.route(req.roomId ?? "");
    for (;;) {
      let got = false;
      try {
        for await (const res of this.at(base).watch(req, { signal, headers: marked ? REDIRECTED : undefined })) {
          got = true;
          this.learn(res.room);
          yield res;
        }
        return;
      } catch (err) {
        const next = got || signal.aborted ? null : this.after(req.roomId ?? "", base, marked, err);
        if (next === null) throw err;
        base = next;
        marked = true;
      }
    }
  }
}
