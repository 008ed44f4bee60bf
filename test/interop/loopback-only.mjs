// Preloaded (`node --import`) into a third-party server under test: a listen() that names no host
// binds 127.0.0.1 instead of every interface. server-everything has no host option, and one of its
// tools (get-env) returns the process environment, so it must not be reachable from elsewhere.
import net from 'node:net';

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  const [first, second] = args;
  if ((typeof first === 'number' || typeof first === 'string') && /^\d+$/.test(String(first)) && typeof second !== 'string') {
    return listen.call(this, first, '127.0.0.1', ...args.slice(1));
  }
  if (typeof first === 'object' && first !== null && !Array.isArray(first) && first.host === undefined && first.path === undefined) {
    return listen.call(this, { ...first, host: '127.0.0.1' }, ...args.slice(1));
  }
  return listen.apply(this, args);
};
