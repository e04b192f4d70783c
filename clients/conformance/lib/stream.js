'use strict';
// A pull-style reader over a grpc-js server stream: next(ms) resolves to the
// next message, rejects with the stream's error (a grpc-js error with
// `rule`, the decoded RuleError) or on timeout.

const { ruleErrorOf } = require('./hand');

function reader(call) {
  const items = [];
  const waiters = [];
  let failure = null;
  const fail = (err) => {
    if (failure) return;
    failure = err;
    if (err && err.metadata) err.rule = ruleErrorOf(err);
    while (waiters.length) waiters.shift().reject(err);
  };
  call.on('data', (m) => {
    if (waiters.length) waiters.shift().resolve(m);
    else items.push(m);
  });
  call.on('error', fail);
  call.on('end', () => fail(new Error('stream ended')));
  return {
    call,
    pending: () => items.length,
    get failure() { return failure; },
    next(ms = 30000) {
      if (items.length) return Promise.resolve(items.shift());
      if (failure) return Promise.reject(failure);
      return new Promise((resolve, reject) => {
        const w = {
          resolve: (v) => { clearTimeout(timer); resolve(v); },
          reject: (e) => { clearTimeout(timer); reject(e); },
        };
        const timer = setTimeout(() => {
          waiters.splice(waiters.indexOf(w), 1);
          reject(new Error(`no stream message within ${ms} ms`));
        }, ms);
        waiters.push(w);
      });
    },
    close() {
      call.cancel();
    },
  };
}

module.exports = { reader };
