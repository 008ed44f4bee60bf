// server-everything over stdio (a process per case), judged by mcp-core and bad-input.
import { CORE_MODULES_MESSAGES, SERVER_EVERYTHING_STDIO } from './expected.js';
import { stdioCommand } from './peer-process.js';
import { SERVER_EVERYTHING } from './peers.js';
import { describePeer } from './support.js';

describePeer('@modelcontextprotocol/server-everything over stdio: mcp-core, bad-input', {
  stdio: stdioCommand(SERVER_EVERYTHING.stdio),
  modules: CORE_MODULES_MESSAGES,
  expected: SERVER_EVERYTHING_STDIO,
});
