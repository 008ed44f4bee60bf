// server-everything over stdio (a process per case), judged by negotiation, lifecycle, cancellation and session-security.
import { CORE_MODULES_LIFECYCLE, SERVER_EVERYTHING_STDIO } from './expected.js';
import { stdioCommand } from './peer-process.js';
import { SERVER_EVERYTHING } from './peers.js';
import { describePeer } from './support.js';

describePeer('@modelcontextprotocol/server-everything over stdio: negotiation, lifecycle, cancellation, session-security', {
  stdio: stdioCommand(SERVER_EVERYTHING.stdio),
  modules: CORE_MODULES_LIFECYCLE,
  expected: SERVER_EVERYTHING_STDIO,
});
