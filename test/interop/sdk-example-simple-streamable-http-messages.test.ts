// The SDK's example server simpleStreamableHttp (@modelcontextprotocol/sdk, unmodified) over
// Streamable HTTP on 127.0.0.1, judged by mcp-core, bad-input.
import { CORE_MODULES_MESSAGES, SDK_EXAMPLE_SIMPLE } from './expected.js';
import { startHttpPeer } from './peer-process.js';
import { SDK_EXAMPLES, SDK_VERSION } from './peers.js';
import { describePeer } from './support.js';

describePeer(`the SDK ${SDK_VERSION} example simpleStreamableHttp over Streamable HTTP: mcp-core, bad-input`, {
  start: () => startHttpPeer(SDK_EXAMPLES.simpleStreamableHttp),
  modules: CORE_MODULES_MESSAGES,
  expected: SDK_EXAMPLE_SIMPLE,
});
