// The one place that chooses the transport (Connect by default, gRPC-Web with ?transport=grpcweb)
// and makes one client per service, as in the connect-es eliza demo.
import { ConnectError, createClient, type Interceptor } from "@connectrpc/connect";
import { createConnectTransport, createGrpcWebTransport } from "@connectrpc/connect-web";
import { AuthService } from "./gen/hand/v1/auth_service_pb";
import { RuleErrorSchema } from "./gen/hand/v1/errors_pb";
import { LedgerService } from "./gen/hand/v1/ledger_service_pb";
import { RoomService } from "./gen/hand/v1/room_service_pb";
import { RulesService } from "./gen/hand/v1/rules_service_pb";
import { getLang } from "./i18n";
import { Authorizer } from "./identity";

const language: Interceptor = (next) => async (req) => {
  req.header.set("accept-language", getLang());
  return next(req);
};
export const transportName = new URLSearchParams(location.search).get("transport") === "grpcweb" ? "grpc-web" : "connect";
function transport(interceptors: Interceptor[]) {
  const options = { baseUrl: location.origin, useBinaryFormat: true, interceptors };
  return transportName === "grpc-web" ? createGrpcWebTransport(options) : createConnectTransport(options);
}

/** The auth service, without the session header; every other client sends it (identity.ts). */
export const auth = createClient(AuthService, transport([language]));
export const authorizer = new Authorizer(auth, () => localStorage.getItem("hand.name") || "");
const withSession = transport([language, authorizer.interceptor]);

export const rooms = createClient(RoomService, withSession);
export const rules = createClient(RulesService, withSession);
export const ledger = createClient(LedgerService, withSession);

/** The server's message (in the player's language) of a refused call. */
export function refusal(err: unknown): string {
  const e = ConnectError.from(err);
  const [detail] = e.findDetails(RuleErrorSchema);
  return detail?.message || e.rawMessage;
}
