// server-everything over Streamable HTTP on 127.0.0.1, judged by mcp-core and bad-input.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpTarget } from '../../src/harness/index.js';
import { CORE_MODULES_MESSAGES, SERVER_EVERYTHING_HTTP } from './expected.js';
import { startServerEverythingHttp, type RunningPeer } from './server-everything.js';
import { expectDocumentedDeviations, INTEROP_TIMEOUT_MS, runModules } from './support.js';

let peer: RunningPeer;
beforeAll(async () => {
  peer = await startServerEverythingHttp();
}, 60_000);
afterAll(async () => {
  await peer?.close();
});

describe('@modelcontextprotocol/server-everything over Streamable HTTP: mcp-core, bad-input', () => {
  it(
    'fails or warns exactly where docs/interop.md says, and nowhere else',
    async () => {
      const result = await runModules(httpTarget(peer.url), CORE_MODULES_MESSAGES);
      expectDocumentedDeviations(result, SERVER_EVERYTHING_HTTP);
    },
    INTEROP_TIMEOUT_MS,
  );
});
