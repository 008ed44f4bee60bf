// The official SDK's McpServer served over the WebTransport binding (WebTransportSdkServerTransport),
// judged by every server suite over HTTP/2 and, where the native addon is installed, HTTP/3.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webTransportTarget, type RunResult } from '../../src/harness/index.js';
import { InvalidStateError } from '../../src/transport/errors.js';
import { connectWebTransport, isHttp3Available, WebTransportSdkServerTransport, type WebTransportServer } from '../../src/transport/webtransport/index.js';
import { SERVER_CASE_MODULES } from '../../suites/server/index.js';
import { SDK_SERVER_WT } from './expected.js';
import { listenSdkMcpServer } from './sdk-server-fixture.js';
import { expectDocumentedDeviations, INTEROP_TIMEOUT_MS, runModules } from './support.js';

const http3 = await isHttp3Available();

function judgedOver(http: 2 | 3): void {
  let server: WebTransportServer;
  let result: RunResult;
  beforeAll(async () => {
    server = await listenSdkMcpServer({ http });
    result = await runModules(webTransportTarget(server.url, { client: { certificateHash: server.certificateHash } }), Object.keys(SERVER_CASE_MODULES));
  }, INTEROP_TIMEOUT_MS);
  afterAll(async () => {
    await server?.close();
  });

  it('fails or warns exactly where docs/interop.md says, and nowhere else', () => {
    expectDocumentedDeviations(result, SDK_SERVER_WT);
  });

  it('has its WebTransport binding duties done by the adapter: $/cancel answered with an error, unknown cancels ignored', () => {
    const answered = result.cases.find((c) => c.id === 'cancellation/dollar-cancel-answered-with-error')!;
    expect(answered.checks.filter((k) => k.requirement === 'WT-CANCEL-2').map((k) => k.verdict)).toContain('PASS');
    expect(result.cases.find((c) => c.id === 'cancellation/dollar-cancel-unknown-request-ignored')?.verdict).toBe('PASS');
    // MCP's own notifications/cancelled still reaches the SDK: no answer for the cancelled request.
    expect(result.cases.find((c) => c.id === 'cancellation/cancelled-notification-webtransport')?.verdict).toBe('PASS');
  });

  it('refuses to wrap a client-role session (InvalidStateError naming the role)', async () => {
    const client = await connectWebTransport(server.url, { certificateHash: server.certificateHash });
    try {
      expect(() => new WebTransportSdkServerTransport(client)).toThrow(InvalidStateError);
      expect(() => new WebTransportSdkServerTransport(client)).toThrow(/role "client"/);
    } finally {
      await client.close();
    }
  });

  it('negotiates the binding: result.transport filled in, CBOR chosen when offered first', () => {
    expect(result.cases.find((c) => c.id === 'negotiation/wt-initialize-result-transport')?.verdict).toBe('PASS');
    expect(result.cases.find((c) => c.id === 'negotiation/wt-negotiated-encoding-used')?.verdict).toBe('PASS');
  });
}

describe('the SDK McpServer over WebTransport (HTTP/2)', () => {
  judgedOver(2);
});

describe.skipIf(!http3)('the SDK McpServer over WebTransport (HTTP/3) (skipped: @fails-components/webtransport-transport-http3-quiche is not installed)', () => {
  judgedOver(3);
});
