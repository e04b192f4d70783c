'use strict';
// What a refused call looks like to a client: the gRPC status and the hand.v1.RuleError in
// grpc-status-details-bin (decoded by lib/hand.js onto err.rule). Shared by the live tests.
const assert = require('node:assert/strict');

const ErrorCode = (name) => `ERROR_CODE_${name}`;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Expect `promise` to fail with gRPC `grpcCode` and RuleError `code`; returns the RuleError. */
async function refused(promise, grpcCode, code) {
  let err = null;
  try {
    await promise;
  } catch (e) {
    err = e;
  }
  assert.ok(err, `expected a refusal ${code}, the call succeeded`);
  assert.ok(err.rule, `refusal without a RuleError in grpc-status-details-bin: ${err.code} ${err.details}`);
  assert.equal(err.rule.code, ErrorCode(code), `RuleError ${JSON.stringify(err.rule.params)} ${err.rule.message}`);
  assert.equal(err.code, grpcCode, `gRPC status for ${code}: ${err.code} (${err.details})`);
  assert.equal(err.rule.status.code, grpcCode, 'google.rpc.Status.code = the gRPC status code');
  assert.ok(err.rule.message.length > 0, 'RuleError.message is set');
  return err.rule;
}

module.exports = { ErrorCode, refused, sleep };
