// server-everything over Streamable HTTP on 127.0.0.1, judged by negotiation, lifecycle, cancellation, session-security and http-transport.
import { CORE_MODULES_LIFECYCLE, SERVER_EVERYTHING_HTTP } from './expected.js';
import { startHttpPeer } from './peer-process.js';
import { SERVER_EVERYTHING } from './peers.js';
import { describePeer } from './support.js';

describePeer('@modelcontextprotocol/server-everything over Streamable HTTP: negotiation, lifecycle, cancellation, session-security, http-transport', {
  start: () => startHttpPeer(SERVER_EVERYTHING.http),
  modules: [...CORE_MODULES_LIFECYCLE, 'http-transport'],
  expected: SERVER_EVERYTHING_HTTP,
});
