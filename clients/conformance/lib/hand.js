'use strict';
// The contract at run time: every type comes from proto/ (loaded with
// protobufjs, field names as in the .proto files), every RPC is a grpc-js
// generic client built from the service definitions there. Nothing here
// knows a field that proto/ does not declare.

const path = require('node:path');
const grpc = require('@grpc/grpc-js');
const protobuf = require('protobufjs');

const PROTO_DIR = path.resolve(__dirname, '..', '..', '..', 'proto');
const FILES = [
  'hand/v1/room_service.proto',
  'hand/v1/room_bus.proto',
  'hand/v1/rules_service.proto',
  'hand/v1/ledger_service.proto',
  'hand/v1/auth_service.proto',
  'hand/v1/tournament_service.proto',
  'google/rpc/status.proto',
];

function loadRoot() {
  const root = new protobuf.Root();
  // Imports are relative to proto/; the well-known types are bundled in protobufjs.
  root.resolvePath = (_origin, target) => {
    if (path.isAbsolute(target) || target.startsWith('google/protobuf/')) return target;
    return path.join(PROTO_DIR, target);
  };
  root.loadSync(FILES, { keepCase: true });
  root.resolveAll();
  return root;
}

const root = loadRoot();
const type = (name) => root.lookupType(name);
const enumOf = (name) => root.lookupEnum(name);

/** The name of an enum value (`ErrorCode`, 7 → 'ERROR_CODE_NOT_YOUR_TURN'). */
function enumName(enumType, value) {
  return enumOf(enumType).valuesById[value] ?? String(value);
}

/** The number of an enum value by name. */
function enumValue(enumType, name) {
  const v = enumOf(enumType).values[name];
  if (v === undefined) throw new Error(`no ${name} in ${enumType}`);
  return v;
}

/** A uint64/int64 as a JavaScript number (seqs stay far below 2^53). */
function num(v) {
  if (v === null || v === undefined) return v;
  if (typeof v === 'object' && typeof v.toNumber === 'function') return v.toNumber();
  return Number(v);
}

/** Field presence: set on the wire (explicit-presence fields: optional, message, oneof member). */
function has(msg, field) {
  return msg != null && Object.prototype.hasOwnProperty.call(msg, field) && msg[field] !== null;
}

// ---------------------------------------------------------------- errors

const Status = type('google.rpc.Status');
const RuleError = type('hand.v1.RuleError');
const RULE_ERROR_URL = 'type.googleapis.com/hand.v1.RuleError';

/**
 * The hand.v1.RuleError of a failed call: google.rpc.Status from the
 * `grpc-status-details-bin` trailer, details[0] an Any holding a RuleError.
 * Returns {grpcCode, status, code (name), params, message} or null.
 */
function ruleErrorOf(err) {
  const md = err && err.metadata;
  const raw = md && md.get('grpc-status-details-bin');
  if (!raw || raw.length === 0) return null;
  const status = Status.decode(raw[0]);
  const any = status.details.find((d) => d.type_url === RULE_ERROR_URL);
  if (!any) return { grpcCode: err.code, status, code: null, params: {}, message: status.message };
  const re = RuleError.decode(any.value);
  return {
    grpcCode: err.code,
    status,
    code: enumName('hand.v1.ErrorCode', re.code),
    params: { ...re.params },
    message: re.message,
  };
}

// ---------------------------------------------------------------- clients

function serviceDefinition(fullName) {
  const svc = root.lookupService(fullName);
  const def = {};
  for (const m of svc.methodsArray) {
    const Req = m.resolvedRequestType;
    const Res = m.resolvedResponseType;
    def[m.name] = {
      path: `/${fullName}/${m.name}`,
      requestStream: !!m.requestStream,
      responseStream: !!m.responseStream,
      requestSerialize: (obj) => Buffer.from(Req.encode(Req.fromObject(obj)).finish()),
      requestDeserialize: (buf) => Req.decode(buf),
      responseSerialize: (obj) => Buffer.from(Res.encode(Res.fromObject(obj)).finish()),
      responseDeserialize: (buf) => Res.decode(buf),
      originalName: m.name,
    };
  }
  return def;
}

/**
 * A promise-returning client of one service: client.CreateRoom(req, {lang, token, headers})
 * resolves to the decoded response or rejects with the grpc-js error, whose
 * `rule` is the decoded RuleError (or null). client.Watch(req) returns the
 * grpc-js stream (async-iterable).
 */
function connect(fullName, address, { lang = 'en' } = {}) {
  const def = serviceDefinition(fullName);
  const Ctor = grpc.makeGenericClientConstructor(def, fullName);
  const raw = new Ctor(address, grpc.credentials.createInsecure());
  // api.token: a session token (AuthService) sent as `authorization: Bearer`.
  const api = { raw, token: null, close: () => raw.close() };
  const metadata = (opts) => {
    const md = new grpc.Metadata();
    md.set('accept-language', opts.lang || lang);
    const token = opts.token === undefined ? api.token : opts.token;
    if (token) md.set('authorization', `Bearer ${token}`);
    for (const [k, v] of Object.entries(opts.headers || {})) md.set(k, v); // e.g. hand-redirected: 1
    return md;
  };
  for (const [name, m] of Object.entries(def)) {
    if (m.responseStream) {
      api[name] = (req, opts = {}) => raw[name](req, metadata(opts));
    } else {
      api[name] = (req, opts = {}) => new Promise((resolve, reject) => {
        const md = metadata(opts);
        const deadline = new Date(Date.now() + (opts.timeoutMs || 20000));
        raw[name](req, md, { deadline }, (err, res) => {
          if (err) {
            err.rule = ruleErrorOf(err);
            reject(err);
          } else resolve(res);
        });
      });
    }
  }
  return api;
}

module.exports = {
  PROTO_DIR, root, type, enumName, enumValue, num, has, ruleErrorOf, connect, grpc, RULE_ERROR_URL,
};
