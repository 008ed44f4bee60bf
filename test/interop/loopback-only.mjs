// Preloaded (`node --import`) into a third-party server under test. Every TCP listen() binds
// 127.0.0.1, whatever host the server names (some have no host option and listen on every
// interface; server-everything's get-env tool returns the process environment, so it must not be
// reachable from elsewhere). With CONFORMANCE_OS_PORT=1 the port asked for is replaced by 0, so the
// OS picks a free one (several servers have a fixed port), and once listening the process writes
// "conformance-interop: listening on 127.0.0.1:<port>" to stderr for the test to read.
import net from 'node:net';

const listen = net.Server.prototype.listen;
const osPort = process.env.CONFORMANCE_OS_PORT === '1';

function announce(server) {
  if (!osPort) return;
  server.once('listening', () => {
    const address = server.address();
    if (address !== null && typeof address === 'object') process.stderr.write(`conformance-interop: listening on 127.0.0.1:${address.port}\n`);
  });
}

net.Server.prototype.listen = function (...args) {
  const [first] = args;
  if (first === undefined || typeof first === 'function') {
    // listen([callback]): any port.
    announce(this);
    return listen.call(this, 0, '127.0.0.1', ...args);
  }
  if ((typeof first === 'number' || typeof first === 'string') && /^\d+$/.test(String(first))) {
    // listen(port[, host][, backlog][, callback]): drop a host, keep the rest.
    const rest = args.slice(1);
    if (typeof rest[0] === 'string') rest.shift();
    announce(this);
    return listen.call(this, osPort ? 0 : Number(first), '127.0.0.1', ...rest);
  }
  if (typeof first === 'object' && first !== null && !Array.isArray(first) && first.path === undefined && !('fd' in first) && !('_handle' in first)) {
    announce(this);
    return listen.call(this, { ...first, host: '127.0.0.1', ...(osPort ? { port: 0 } : {}) }, ...args.slice(1));
  }
  return listen.apply(this, args);
};
