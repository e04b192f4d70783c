// The web app's rules for reaching a room's owner (src/owner.ts), run in node on its bundled code
// with stand-in room clients per base URL (no browser, no server): the owner learnt from a RoomInfo,
// ROOM_MOVED followed once with hand-redirected: 1 and kept, the fallback to the page's own server
// when the owner cannot be reached, the page's own server recognised however it is spelt, and
// OVERLOADED retried with the same request. tests/unit/test_web_owner_logic.py runs it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";

const src = new URL("../src/", import.meta.url).pathname;
const out = join(mkdtempSync(join(tmpdir(), "hand-owner-")), "owner.mjs");
await build({
  stdin: {
    contents: `export * from "./owner";
      export { Code, ConnectError } from "@connectrpc/connect";
      export { create } from "@bufbuild/protobuf";
      export { ErrorCode, RuleErrorSchema } from "./gen/hand/v1/errors_pb";`,
    resolveDir: src, loader: "ts",
  },
  bundle: true, format: "esm", platform: "node", outfile: out, logLevel: "warning",
});
const { Owners, overloadRetry, Code, ConnectError, create, ErrorCode, RuleErrorSchema } = await import(out);

const HOME = "http://127.0.0.1:8080";
const OWNER = "https://room-1.example";

function refusal(code, grpcCode, params) {
  return new ConnectError(String(code), grpcCode, undefined,
    [{ desc: RuleErrorSchema, value: create(RuleErrorSchema, { code, params }) }]);
}
const moved = (url) => refusal(ErrorCode.ROOM_MOVED, Code.FailedPrecondition,
  { owner_address: "room-1:50052", owner_web_url: url, owner_instance: "room-1" });
const unreachable = () => new ConnectError("Failed to fetch", Code.Unknown, undefined, undefined, new TypeError("Failed to fetch"));

/** Stand-in servers by base URL: `notOwner` ones refuse unmarked Act/Watch with ROOM_MOVED → `to`. */
function fleet({ notOwner = {}, down = [] } = {}) {
  const calls = [];
  const make = (base) => {
    const marked = (o) => o?.headers?.["hand-redirected"] === "1";
    const refuse = (o) => {
      if (down.includes(base)) throw unreachable();
      if (base in notOwner && !marked(o)) throw moved(notOwner[base]);
    };
    return {
      async act(req, o) {
        calls.push({ base, id: req.actionId, marked: marked(o) });
        refuse(o);
        return { lastSeq: 1n };
      },
      async getTicket(req, o) {
        calls.push({ base, ticket: req.ticketId, marked: marked(o) });
        refuse(o);
        return { ticket: { ticketId: req.ticketId } };
      },
      async *watch(req, o) {
        calls.push({ base, watch: true, marked: marked(o) });
        refuse(o);
        yield { room: undefined };
        if (req.failAfterFirst) throw unreachable();
      },
    };
  };
  return { calls, owners: (home = HOME) => new Owners(home, make) };
}
const act = (id, roomId = "r1") => ({ roomId, seatToken: "t", actionId: id });

test("a room's Act goes to the owner a RoomInfo named, unmarked", async () => {
  const f = fleet();
  const o = f.owners();
  o.learn({ roomId: "r1", owner: { address: "room-1:50052", webUrl: `${OWNER}/`, instanceId: "room-1" } });
  await o.act(act("a1"));
  assert.deepEqual(f.calls, [{ base: OWNER, id: "a1", marked: false }]);
  o.learn({ roomId: "r1", owner: { address: "x", webUrl: "http://localhost:8080", instanceId: "home" } });
  await o.act(act("a2"));
  assert.deepEqual(f.calls.at(-1), { base: HOME, id: "a2", marked: false }, "localhost is the page's own 127.0.0.1");
});

test("ROOM_MOVED is followed once, marked, and the owner kept", async () => {
  const f = fleet({ notOwner: { [HOME]: OWNER } });
  const o = f.owners();
  await o.act(act("a1"));
  await o.act(act("a2"));
  assert.deepEqual(f.calls, [
    { base: HOME, id: "a1", marked: false }, { base: OWNER, id: "a1", marked: true },
    { base: OWNER, id: "a2", marked: false }]);
  assert.equal(o.stats.redirects, 1);
  assert.equal(o.ownerOf("r1"), OWNER);
});

test("play now: a ticket's call follows ROOM_MOVED to its pool's owner, kept per pool", async () => {
  const f = fleet({ notOwner: { [HOME]: OWNER } });
  const o = f.owners();
  const get = (id) => o.atPool("mm:hand:2", (c, headers) => c.getTicket({ ticketId: id, seatToken: "t" }, { headers }));
  await get("mm:hand:2:a");
  await get("mm:hand:2:a");
  assert.deepEqual(f.calls, [
    { base: HOME, ticket: "mm:hand:2:a", marked: false }, { base: OWNER, ticket: "mm:hand:2:a", marked: true },
    { base: OWNER, ticket: "mm:hand:2:a", marked: false }]);
  assert.equal(o.ownerOf("mm:hand:2"), OWNER);
  assert.equal(o.ownerOf("mm:hand:4"), "", "another pool: not learnt");
});

test("an owner that serves no browsers: the page's own server, marked", async () => {
  const f = fleet({ notOwner: { [HOME]: "" } });
  await f.owners().act(act("a1"));
  assert.deepEqual(f.calls, [{ base: HOME, id: "a1", marked: false }, { base: HOME, id: "a1", marked: true }]);
});

test("an owner that cannot be reached: the page's own server, marked, for a while", async () => {
  const f = fleet({ down: [OWNER] });
  const o = f.owners();
  o.learn({ roomId: "r1", owner: { address: "room-1:50052", webUrl: OWNER, instanceId: "room-1" } });
  await o.act(act("a1"));
  await o.act(act("a2"));
  assert.deepEqual(f.calls, [
    { base: OWNER, id: "a1", marked: false }, { base: HOME, id: "a1", marked: true },
    { base: HOME, id: "a2", marked: true }]);
  assert.equal(o.stats.fallbacks, 1);
});

test("any other refusal is the caller's, sent nowhere else", async () => {
  const tried = [];
  const o = new Owners(HOME, (base) => ({ act: async () => {
    tried.push(base);
    throw refusal(ErrorCode.NOT_YOUR_TURN, Code.FailedPrecondition, {});
  } }));
  o.learn({ roomId: "r1", owner: { address: "room-1:50052", webUrl: OWNER, instanceId: "room-1" } });
  await assert.rejects(o.act(act("a1")), (e) => e.code === Code.FailedPrecondition);
  assert.deepEqual(tried, [OWNER]);
});

test("a Watch refused with ROOM_MOVED before its first message is followed; a later error is the caller's", async () => {
  const f = fleet({ notOwner: { [HOME]: OWNER } });
  const o = f.owners();
  const stop = new AbortController();
  const got = [];
  await assert.rejects(async () => {
    for await (const m of o.watch({ roomId: "r1", failAfterFirst: true }, stop.signal)) got.push(m);
  }, (e) => e.message.includes("Failed to fetch"));
  assert.equal(got.length, 1);
  assert.deepEqual(f.calls, [{ base: HOME, watch: true, marked: false }, { base: OWNER, watch: true, marked: true }]);
});

test("OVERLOADED: the same request again after retry_after_ms, at most five times", async () => {
  let n = 0;
  const seen = [];
  const next = async (req) => {
    seen.push(req.message.actionId);
    if (++n < 3) throw refusal(ErrorCode.OVERLOADED, Code.ResourceExhausted, { limit: "pending_commands", retry_after_ms: "20" });
    return { message: {} };
  };
  const req = { stream: false, signal: new AbortController().signal, message: { actionId: "same" } };
  // measured with performance.now() (sub-millisecond), not Date.now(), whose whole milliseconds can
  // make two 20 ms waits read 39; and with 1 ms of tolerance, as a timer may fire a fraction of a
  // millisecond early against this clock: two waits of retry_after_ms (20) are at least 39 ms here
  const started = performance.now();
  await overloadRetry(next)(req);
  assert.deepEqual(seen, ["same", "same", "same"]);
  const waited = performance.now() - started;
  assert.ok(waited >= 40 - 1, `waited retry_after_ms between tries: ${waited} ms`);
  n = -100; // always overloaded
  await assert.rejects(overloadRetry(next)(req), (e) => e.code === Code.ResourceExhausted);
  assert.equal(seen.length, 3 + 5);
});
