// server-everything over stdio (a process per case), judged by mcp-core (its tool sweeps and its
// dropped batch wait long over stdio, so bad-input has a file of its own).
import { SERVER_EVERYTHING_STDIO } from './expected.js';
import { stdioCommand } from './peer-process.js';
import { SERVER_EVERYTHING } from './peers.js';
import { describePeer } from './support.js';

describePeer('@modelcontextprotocol/server-everything over stdio: mcp-core', {
  stdio: stdioCommand(SERVER_EVERYTHING.stdio),
  modules: ['mcp-core'],
  expected: SERVER_EVERYTHING_STDIO,
});
