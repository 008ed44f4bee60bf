// server-everything over Streamable HTTP on 127.0.0.1, judged by mcp-core and bad-input.
import { CORE_MODULES_MESSAGES, SERVER_EVERYTHING_HTTP } from './expected.js';
import { startHttpPeer } from './peer-process.js';
import { SERVER_EVERYTHING } from './peers.js';
import { describePeer } from './support.js';

describePeer('@modelcontextprotocol/server-everything over Streamable HTTP: mcp-core, bad-input', {
  start: () => startHttpPeer(SERVER_EVERYTHING.http),
  modules: CORE_MODULES_MESSAGES,
  expected: SERVER_EVERYTHING_HTTP,
});
