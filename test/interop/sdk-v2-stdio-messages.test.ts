// A server on the SDK v2 (@modelcontextprotocol/server, test/interop/sdk-v2-server.mjs) over stdio
// (a process per case), judged by mcp-core and bad-input.
import { CORE_MODULES_MESSAGES, SDK_V2_STDIO } from './expected.js';
import { stdioCommand } from './peer-process.js';
import { SDK_V2_FIXTURE, SDK_V2_VERSION } from './peers.js';
import { describePeer } from './support.js';

describePeer(`a server on @modelcontextprotocol/server ${SDK_V2_VERSION} over stdio: mcp-core, bad-input`, {
  stdio: stdioCommand(SDK_V2_FIXTURE.stdio),
  modules: CORE_MODULES_MESSAGES,
  expected: SDK_V2_STDIO,
});
