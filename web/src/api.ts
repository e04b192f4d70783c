// The one place that chooses the transport (Connect by default, gRPC-Web with ?transport=grpcweb)
// and makes one client per service, as in the connect-es eliza demo. Room calls go to the page's own
// server but a room's Act and Watch, which go to the room's owner (owner.ts: `owners`).
import { ConnectError, createClient, type Interceptor } from "@connectrpc/connect";
import { createConnectTransport, createGrpcWebTransport } from "@connectrpc/connect-web";
import { AuthService } from "./gen/hand/v1/auth_service_pb";
import { RuleErrorSchema } from "./gen/hand/v1/errors_pb";
import { LedgerService } from "./gen/hand/v1/ledger_service_pb";
import { RoomService } from "./gen/hand/v1/room_service_pb";
import { RulesService } from "./gen/hand/v1/rules_service_pb";
import { TournamentService } from "./gen/hand/v1/tournament_service_pb";
import { getLang, t } from "./i18n";
import { Authorizer } from "./identity";
import { Owners, overloadRetry, unreachable } from "./owner";

const language: Interceptor = (next) => async (req) => {
  req.header.set("accept-language", getLang());
  return next(req);
};
export const transportName = new URLSearchParams(location.search).get("transport") === "grpcweb" ? "grpc-web" : "connect";
function transport(interceptors: Interceptor[], baseUrl = location.origin) {
  const options = { baseUrl, useBinaryFormat: true, interceptors };
  return transportName === "grpc-web" ? createGrpcWebTransport(options) : createConnectTransport(options);
}

/** The auth service, without the session header; every other client sends it (identity.ts). */
export const auth = createClient(AuthService, transport([language]));
export const authorizer = new Authorizer(auth, () => localStorage.getItem("hand.name") || "");
const withSession = transport([language, overloadRetry, authorizer.interceptor]);

/** The room service at the page's own server and, for a room's Act and Watch, at its owner. */
export const owners: Owners = new Owners(location.origin, (base) =>
  createClient(RoomService, transport([language, overloadRetry, authorizer.interceptor, owners.learner], base)));
(globalThis as { __handOwners?: Owners }).__handOwners = owners;
export const rooms = owners.at(location.origin);
export const rules = createClient(RulesService, withSession);
export const ledger = createClient(LedgerService, withSession);
/** Duplicate tournaments, served by the ledger (docs/decisions/0029-duplicate-tournaments.md). */
export const tournaments = createClient(TournamentService, withSession);

/** The server's message (in the player's language) of a refused call. */
export function refusal(err: unknown): string {
  if (unreachable(err)) return t().reconnecting; // never the browser's own "Failed to fetch"
  const e = ConnectError.from(err);
  const [detail] = e.findDetails(RuleErrorSchema);
  return detail?.message || e.rawMessage;
}
