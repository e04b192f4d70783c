// The player's identity in this browser (docs/clients.md, "Sessions"): a device id generated once
// and kept in localStorage is this browser's guest account (AuthService.SignInGuest); its session
// token goes on every call as `authorization: Bearer`, refreshed before it expires and once more when
// a call says SESSION_EXPIRED. Refresh tokens are single use, so one sign-in or refresh runs at a
// time. If the auth service cannot be reached the page still plays, as a guest without an account.
import { Code, ConnectError, type Client, type Interceptor } from "@connectrpc/connect";
import type { AuthService, Session } from "./gen/hand/v1/auth_service_pb";
import { ErrorCode, RuleErrorSchema } from "./gen/hand/v1/errors_pb";

export interface Identity { playerId: string; access: string; accessExpiresAt: number; refresh: string; }

const KEY = "hand.session";
const DEVICE = "hand.device";
const EARLY_MS = 30_000; // refresh this long before the access token expires
const RETRY_SIGN_IN_MS = 30_000; // after the auth service could not be reached

/** This browser's device id: 32 random characters of [A-Za-z0-9], made once. */
export function deviceId(): string {
  let id = localStorage.getItem(DEVICE);
  if (!id) {
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    id = Array.from(crypto.getRandomValues(new Uint8Array(32)), (b) => alphabet[b % alphabet.length]).join("");
    localStorage.setItem(DEVICE, id);
  }
  return id;
}

/** The stored identity, if this browser has signed in. */
export function identity(): Identity | null {
  const raw = localStorage.getItem(KEY);
  return raw ? (JSON.parse(raw) as Identity) : null;
}

/** How long a session token lives (its `exp` − `iat`), so that its expiry is kept on this device's
 * clock: a clock set wrong would otherwise see every token as expired and refresh on every call. */
function lifetimeMs(token: string, fallback: number): number {
  try {
    const part = token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/");
    const claims = JSON.parse(atob(part + "=".repeat((4 - (part.length % 4)) % 4)));
    return (claims.exp - claims.iat) * 1000;
  } catch {
    return fallback;
  }
}

function keep(playerId: string, s: Session | undefined): Identity {
  if (!s) throw new Error("no session in the answer");
  const lifetime = lifetimeMs(s.accessToken, Number(s.accessExpiresAtMs) - Date.now());
  const id = { playerId, access: s.accessToken, accessExpiresAt: Date.now() + lifetime, refresh: s.refreshToken };
  localStorage.setItem(KEY, JSON.stringify(id));
  return id;
}

function code(err: unknown): ErrorCode | undefined {
  return ConnectError.from(err).findDetails(RuleErrorSchema)[0]?.code;
}

type Auth = Client<typeof AuthService>;

/** Signs in, refreshes and authorizes calls for one page. */
export class Authorizer {
  private pending: Promise<Identity | null> | null = null;
  private unreachableUntil = 0;

  constructor(private readonly auth: Auth, private readonly name: () => string) {}

  /** ``work`` alone: one at a time in this page, and across the browser's tabs (they share the stored
   * session: two tabs refreshing with one single-use token would revoke the player's sessions). */
  private once(work: () => Promise<Identity | null>): Promise<Identity | null> {
    const locks = (navigator as { locks?: { request<T>(name: string, f: () => Promise<T>): Promise<T> } }).locks;
    this.pending ??= (locks ? locks.request(KEY, work) : work()).finally(() => { this.pending = null; });
    return this.pending;
  }

  private async signIn(): Promise<Identity | null> {
    if (Date.now() < this.unreachableUntil) return null;
    try {
      const r = await this.auth.signInGuest({ deviceId: deviceId(), displayName: this.name().slice(0, 64) });
      return keep(r.player?.playerId ?? "", r.session);
    } catch (err) {
      console.warn("sign-in failed; playing as a guest for now", ConnectError.from(err).message);
      this.unreachableUntil = Date.now() + RETRY_SIGN_IN_MS;
      return null;
    }
  }

  private async refreshed(id: Identity): Promise<Identity | null> {
    try {
      const r = await this.auth.refreshSession({ refreshToken: id.refresh });
      return keep(id.playerId, r.session);
    } catch (err) {
      if (ConnectError.from(err).code !== Code.Unauthenticated) return id; // try the old one; next call retries
      localStorage.removeItem(KEY); // spent, expired or revoked: the device signs in again (same player)
      return this.signIn();
    }
  }

  /** A usable identity: the stored one, refreshed when it is about to expire, or a new sign-in. */
  current(): Promise<Identity | null> {
    const usable = (id: Identity | null): id is Identity => !!id && id.accessExpiresAt - EARLY_MS > Date.now();
    const id = identity();
    if (usable(id)) return Promise.resolve(id);
    return this.once(async () => {
      const now = identity(); // another tab may have renewed it while this one waited for the lock
      if (usable(now)) return now;
      return now ? this.refreshed(now) : this.signIn();
    });
  }

  /** After a call refused the token: a fresh one (null: go on without). */
  private renew(err: unknown, used: Identity): Promise<Identity | null> {
    return this.once(async () => {
      const now = identity();
      if (now && now.access !== used.access) return now; // another call renewed it meanwhile
      if (code(err) === ErrorCode.SESSION_EXPIRED) return this.refreshed(used);
      localStorage.removeItem(KEY); // a token the server does not accept (e.g. a new server key)
      return this.signIn();
    });
  }

  /** A stream refused the session (its error comes while reading, past the interceptor): renew
   * the stored identity, so the stream's next attempt sends a usable token. */
  async refused(err: unknown): Promise<void> {
    const id = identity();
    if (id && ConnectError.from(err).code === Code.Unauthenticated) await this.renew(err, id);
  }

  /** The interceptor of every service client but the auth service's own. */
  readonly interceptor: Interceptor = (next) => async (req) => {
    const id = await this.current();
    if (id) req.header.set("authorization", `Bearer ${id.access}`);
    try {
      return await next(req);
    } catch (err) {
      // a stream's request body is spent: its loop renews (refused) and reconnects itself
      if (!id || req.stream || ConnectError.from(err).code !== Code.Unauthenticated) throw err;
      const fresh = await this.renew(err, id);
      if (!fresh) throw err;
      req.header.set("authorization", `Bearer ${fresh.access}`);
      return await next(req);
    }
  };
}
