// A server on the SDK v2 (@modelcontextprotocol/server, test/interop/sdk-v2-server.mjs) over stdio
// (a process per case), judged by every suite that applies to an MCP server over stdio.
import { SDK_V2_STDIO, STDIO_MODULES } from './expected.js';
import { stdioCommand } from './peer-process.js';
import { SDK_V2_FIXTURE, SDK_V2_VERSION } from './peers.js';
import { describePeer } from './support.js';

describePeer(`a server on @modelcontextprotocol/server ${SDK_V2_VERSION} over stdio`, {
  stdio: stdioCommand(SDK_V2_FIXTURE.stdio),
  modules: STDIO_MODULES,
  expected: SDK_V2_STDIO,
});
