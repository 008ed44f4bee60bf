// The runner against real transports on loopback: the mock server over Streamable HTTP and a
// small server spawned per case over stdio. Each case runs in its own session.
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineCase, requiresCapability, type ConformanceCase, type Target } from '../../src/harness/case.js';
import { CaseRegistry } from '../../src/harness/registry.js';
import { runConformance } from '../../src/harness/runner.js';
import { shellQuote } from '../../src/harness/rerun.js';
import { httpRerunArgs, httpTarget, stdioTarget, webTransportTarget } from '../../src/harness/transport-targets.js';
import { webTransportBinding } from '../../src/peer/server/binding.js';
import { createMockServer } from '../../src/peer/server/server.js';
import { listenHttp, type HttpListener } from '../../src/transport/http/server.js';
import { listenWebTransport, type WebTransportServer } from '../../src/transport/webtransport/server.js';
import { generateSelfSignedCertificate } from '../../src/transport/webtransport/tls.js';

type Msg = Record<string, unknown>;
const INIT = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'harness-test', version: '1' } };

const pingAfterInitialize = defineCase({
  id: 'transport/ping',
  suite: 'transport',
  title: 'ping is answered with {} after initialize',
  requirements: ['CORE-LIFE-12'],
  applies: requiresCapability('tools'),
  async run(ctx) {
    const init = await ctx.request('CORE-LIFE-12', 'initialize', INIT);
    if (!init) return;
    await ctx.connection.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const answer = await ctx.request('CORE-LIFE-12', 'ping');
    if (answer) ctx.check('CORE-LIFE-12', JSON.stringify(answer.result) === '{}', { message: 'ping result is {}', expected: {}, actual: answer.result });
  },
});
const cases: ConformanceCase[] = [pingAfterInitialize, { ...pingAfterInitialize, id: 'transport/ping-again' }];

async function runAll(target: Target, timeoutScale = 1) {
  const registry = new CaseRegistry();
  registry.registerAll(cases);
  return runConformance({ registry, target, workers: 2, timeoutScale });
}

let listener: HttpListener | undefined;
let wt: WebTransportServer | undefined;
beforeAll(async () => {
  const binding = webTransportBinding();
  const mock = createMockServer({ extensions: [binding] });
  listener = await listenHttp({ onSession: (connection) => void mock.serve(connection) });
  wt = await listenWebTransport({ tls: await generateSelfSignedCertificate(), ...binding.listener, onConnection: (connection) => void mock.serve(connection) });
});
// Both are closed even when the other failed to start (so a failed start does not leave one open).
afterAll(async () => {
  await Promise.all([listener?.close(), wt?.close()]);
});

describe('transport targets', () => {
  it('Streamable HTTP: discovery and every case in its own session', async () => {
    const result = await runAll(httpTarget(listener!.url));
    expect(result.cases.map((c) => c.verdict)).toEqual(['PASS', 'PASS']);
    expect(result.target).toMatchObject({ transport: 'http', description: listener!.url, protocolVersion: expect.any(String) });
    expect(result.cases[0]!.rerun).toBe(`mcp-flow-conformance server --url ${listener!.url} --case transport/ping`);
  });

  it('WebTransport: discovery negotiates the binding, every case in its own session', async () => {
    const target = webTransportTarget(wt!.url, {
      client: { certificateHash: wt!.certificateHash },
      rerunArgs: ['--url', wt!.url, '--certificate-hash', wt!.certificateHash],
    });
    const result = await runAll(target);
    expect(result.cases.map((c) => [c.verdict, c.reason])).toEqual([
      ['PASS', undefined],
      ['PASS', undefined],
    ]);
    expect(result.target.transport).toBe('webtransport');
    expect(result.cases[1]!.rerun).toBe(`mcp-flow-conformance server --url ${wt!.url} --certificate-hash ${wt!.certificateHash} --case transport/ping-again`);
  });

  it('stdio: a process per case', async () => {
    const fixture = fileURLToPath(new URL('../fixtures/http-stdio/serve-stdio-server.ts', import.meta.url));
    const command = `${process.execPath} --import tsx ${fixture}`;
    // Each case spawns node + tsx, which a loaded machine can take seconds to start: generous limits.
    const result = await runAll(stdioTarget(command), 3);
    expect(result.cases.map((c) => [c.verdict, c.reason])).toEqual([
      ['PASS', undefined],
      ['PASS', undefined],
    ]);
    expect((result.target.serverInfo as Msg).name).toBe('serve-stdio-fixture');
    expect(result.cases[0]!.rerun).toBe(`mcp-flow-conformance server --stdio ${shellQuote(command)} --case transport/ping --timeout-scale 3`);
  });

  it('rerun arguments: --url alone for http://, --transport http only where https could also be WebTransport', () => {
    expect(httpRerunArgs('http://127.0.0.1:8080/mcp')).toEqual(['--url', 'http://127.0.0.1:8080/mcp']);
    expect(httpRerunArgs('https://example.test/mcp')).toEqual(['--url', 'https://example.test/mcp', '--transport', 'http']);
    expect(webTransportTarget('https://example.test:4433/mcp').describe().rerunArgs).toEqual(['--url', 'https://example.test:4433/mcp']);
    expect(stdioTarget('node server.js').describe().rerunArgs).toEqual(['--stdio', 'node server.js']);
  });
});

describe('MCP Flow discovery', () => {
  it('finds the capabilities result and the tools interaction.start accepts, or takes them from the user', async () => {
    const { startMockServer } = await import('../../src/peer/server/start.js');
    const { discoverOver } = await import('../../src/harness/target.js');
    const { connectHttp } = await import('../../src/transport/http/client.js');
    const server = await startMockServer({ transport: 'http', fastworkflow: false });
    try {
      const probed = await discoverOver(await connectHttp(server.url));
      expect(probed.flowCapabilities).toMatchObject({ interactive: true });
      expect([...probed.interactiveTools!].sort()).toEqual([...server.wizards].sort());
      const given = await discoverOver(await connectHttp(server.url), { interactiveTools: ['booking'] });
      expect(given.interactiveTools).toEqual(['booking']);
    } finally {
      await server.close();
    }
  });
});
