// The SDK's example server jsonResponseStreamableHttp (@modelcontextprotocol/sdk, unmodified) over Streamable HTTP on
// 127.0.0.1, judged by every suite that applies to an MCP server over HTTP.
import { HTTP_MODULES, SDK_EXAMPLE_JSON_RESPONSE } from './expected.js';
import { startHttpPeer } from './peer-process.js';
import { SDK_EXAMPLES, SDK_VERSION } from './peers.js';
import { describePeer } from './support.js';

describePeer(`the SDK ${SDK_VERSION} example jsonResponseStreamableHttp over Streamable HTTP`, {
  start: () => startHttpPeer(SDK_EXAMPLES.jsonResponseStreamableHttp),
  modules: HTTP_MODULES,
  expected: SDK_EXAMPLE_JSON_RESPONSE,
});
