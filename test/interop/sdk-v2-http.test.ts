// A server on the SDK v2 (@modelcontextprotocol/server, test/interop/sdk-v2-server.mjs) over
// Streamable HTTP on 127.0.0.1, judged by every suite that applies to an MCP server over HTTP.
import { HTTP_MODULES, SDK_V2_HTTP } from './expected.js';
import { startHttpPeer } from './peer-process.js';
import { SDK_V2_FIXTURE, SDK_V2_VERSION } from './peers.js';
import { describePeer } from './support.js';

describePeer(`a server on @modelcontextprotocol/server ${SDK_V2_VERSION} over Streamable HTTP`, {
  start: () => startHttpPeer(SDK_V2_FIXTURE.http),
  modules: HTTP_MODULES,
  expected: SDK_V2_HTTP,
});
