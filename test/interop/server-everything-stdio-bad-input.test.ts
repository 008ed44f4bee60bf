// server-everything over stdio (a process per case), judged by bad-input.
import { SERVER_EVERYTHING_STDIO } from './expected.js';
import { stdioCommand } from './peer-process.js';
import { SERVER_EVERYTHING } from './peers.js';
import { describePeer } from './support.js';

describePeer('@modelcontextprotocol/server-everything over stdio: bad-input', {
  stdio: stdioCommand(SERVER_EVERYTHING.stdio),
  modules: ['bad-input'],
  expected: SERVER_EVERYTHING_STDIO,
});
