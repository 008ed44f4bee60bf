// A server on the SDK v2 (@modelcontextprotocol/server, test/interop/sdk-v2-server.mjs) over stdio
// (a process per case), judged by negotiation, lifecycle, cancellation and session-security.
import { CORE_MODULES_LIFECYCLE, SDK_V2_STDIO } from './expected.js';
import { stdioCommand } from './peer-process.js';
import { SDK_V2_FIXTURE, SDK_V2_VERSION } from './peers.js';
import { describePeer } from './support.js';

describePeer(`a server on @modelcontextprotocol/server ${SDK_V2_VERSION} over stdio: negotiation, lifecycle, cancellation, session-security`, {
  stdio: stdioCommand(SDK_V2_FIXTURE.stdio),
  modules: CORE_MODULES_LIFECYCLE,
  expected: SDK_V2_STDIO,
});
