// The SDK's example server simpleStatelessStreamableHttp (@modelcontextprotocol/sdk, unmodified) over Streamable HTTP on
// 127.0.0.1, judged by every suite that applies to an MCP server over HTTP.
import { HTTP_MODULES, SDK_EXAMPLE_STATELESS } from './expected.js';
import { startHttpPeer } from './peer-process.js';
import { SDK_EXAMPLES, SDK_VERSION } from './peers.js';
import { describePeer } from './support.js';

describePeer(`the SDK ${SDK_VERSION} example simpleStatelessStreamableHttp over Streamable HTTP`, {
  start: () => startHttpPeer(SDK_EXAMPLES.simpleStatelessStreamableHttp),
  modules: HTTP_MODULES,
  expected: SDK_EXAMPLE_STATELESS,
});
