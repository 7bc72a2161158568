// Preloaded (NODE_OPTIONS=--import) into the conformance suite and into the client it
// launches, by scripts/conformance-client.mjs. The suite's test servers call
// `listen(0)`, which binds every interface; this forces any listen() without a specific
// host (or with a wildcard / "localhost") onto 127.0.0.1, and makes "localhost" resolve
// IPv4-first so the client's requests go to 127.0.0.1 as well.
import dns from 'node:dns';
import net from 'node:net';

dns.setDefaultResultOrder('ipv4first');

const LOOPBACK = '127.0.0.1';
const WILDCARDS = new Set(['', '0.0.0.0', '::', 'localhost', '::ffff:0.0.0.0']);
const originalListen = net.Server.prototype.listen;

// With a host, net.Server#listen() resolves it through dns.lookup() before binding, so
// address() is null right after listen() returns. The suite reads
// `app.listen(0).address().port` synchronously, so while our listen() runs, a lookup of
// the loopback literal answers synchronously and the bind happens before listen()
// returns, exactly as it does without a host.
let syncLoopbackLookup = false;
const originalLookup = dns.lookup;
dns.lookup = function lookup(hostname, options, callback) {
  if (syncLoopbackLookup && hostname === LOOPBACK) {
    const cb = typeof options === 'function' ? options : callback;
    const all = options && typeof options === 'object' && options.all;
    if (all) cb(null, [{ address: LOOPBACK, family: 4 }]);
    else cb(null, LOOPBACK, 4);
    return {};
  }
  return originalLookup.apply(this, arguments);
};

function isPort(v) {
  return typeof v === 'number' || (typeof v === 'string' && /^\d+$/.test(v));
}

net.Server.prototype.listen = function listen(...args) {
  const [first] = args;
  if (args.length === 0 || typeof first === 'function') {
    args.unshift(0, LOOPBACK);
  } else if (isPort(first)) {
    if (typeof args[1] !== 'string' || WILDCARDS.has(args[1])) {
      if (typeof args[1] === 'string') args[1] = LOOPBACK;
      else args.splice(1, 0, LOOPBACK);
    }
  } else if (
    first &&
    typeof first === 'object' &&
    first.path === undefined &&
    first.fd === undefined &&
    first.handle === undefined &&
    !(first._handle !== undefined) &&
    (first.host === undefined || WILDCARDS.has(first.host))
  ) {
    args[0] = { ...first, host: LOOPBACK };
  }
  syncLoopbackLookup = true;
  try {
    return originalListen.apply(this, args);
  } finally {
    syncLoopbackLookup = false;
  }
};
