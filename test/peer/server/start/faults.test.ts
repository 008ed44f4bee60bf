// Faults switched on through startMockServer change what a real transport carries, one per
// layer: core (Streamable HTTP), MCP Flow and the WebTransport binding (WebTransport).
import { networkInterfaces } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import {
  FaultNotServedError,
  UnknownFaultError,
  mockServerFaultCatalog,
  startMockServer,
  type RunningMockServer,
} from '../../../../src/peer/server/index.js';
import { WEBTRANSPORT_FAULTS } from '../../../../src/peer/server/binding-faults.js';
import { connectWebTransport, initializeSession } from '../../../../src/transport/webtransport/index.js';
import { openRaw } from './support.js';

const running: RunningMockServer[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((server) => server.close()));
});

async function start(...args: Parameters<typeof startMockServer>): Promise<RunningMockServer> {
  const server = await startMockServer(...args);
  running.push(server);
  return server;
}

describe('faults through startMockServer', () => {
  it('core (http): ping-non-empty-result makes ping answer a non-empty result', async () => {
    const healthy = await openRaw(await start({ transport: 'http' }));
    expect((await healthy.call('ping')).result).toEqual({});
    await healthy.connection.close();
    const server = await start({ transport: 'http', faults: ['ping-non-empty-result'] });
    expect(server.faults.list()).toEqual(['ping-non-empty-result']);
    const broken = await openRaw(server);
    const answer = await broken.call('ping');
    expect(answer.result).toBeTypeOf('object');
    expect(Object.keys(answer.result).length).toBeGreaterThan(0);
    await broken.connection.close();
  });

  it('http (Streamable HTTP listener): protocol-version-header-ignored serves an unsupported MCP-Protocol-Version', async () => {
    const status = async (server: RunningMockServer) => {
      const client = await openRaw(server);
      const response = await client.connection.http!.request({
        headers: { 'MCP-Protocol-Version': '1999-01-01', Accept: 'application/json, text/event-stream', 'Content-Type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 99, method: 'ping' }),
      });
      await client.connection.close();
      return response.status;
    };
    expect(await status(await start({ transport: 'http' }))).toBe(400);
    expect(await status(await start({ transport: 'http', faults: ['protocol-version-header-ignored'] }))).toBe(200);
    expect(mockServerFaultCatalog().find((f) => f.name === 'protocol-version-header-ignored')).toMatchObject({ layer: 'http', requirement: 'CORE-VER-8' });
    await expect(start({ transport: 'wt', faults: ['protocol-version-header-ignored'] })).rejects.toBeInstanceOf(FaultNotServedError);
  });

  it('http (Streamable HTTP listener): plain-http-on-network-address serves plain http on an address off loopback (FLOW-SEC-5)', async () => {
    const offLoopback = Object.values(networkInterfaces())
      .flatMap((addresses) => addresses ?? [])
      .find((address) => address.family === 'IPv4' && !address.internal)?.address;
    expect(new URL((await start({ transport: 'http' })).url).hostname).toBe('127.0.0.1');
    const server = await start({ transport: 'http', faults: ['plain-http-on-network-address'] });
    // A machine with no network interface listens on every interface (0.0.0.0), still off loopback.
    expect(new URL(server.url)).toMatchObject({ protocol: 'http:', hostname: offLoopback ?? '0.0.0.0' });
    const broken = await openRaw(server);
    expect((await broken.call('ping')).result).toEqual({});
    await broken.connection.close();
    expect(mockServerFaultCatalog().find((f) => f.name === 'plain-http-on-network-address')).toMatchObject({ layer: 'http', requirement: 'FLOW-SEC-5' });
  });

  it('flow (wt): start-without-state leaves state out of the interaction.start result', async () => {
    const healthy = await openRaw(await start({ transport: 'wt' }));
    expect((await healthy.call('interaction.start', { toolName: 'booking' })).result).toHaveProperty('state');
    await healthy.connection.close();
    const broken = await openRaw(await start({ transport: 'wt', faults: ['start-without-state'] }));
    const answer = await broken.call('interaction.start', { toolName: 'booking' });
    expect(answer.result.sessionId).toBeTypeOf('string');
    expect(answer.result).not.toHaveProperty('state');
    await broken.connection.close();
  });

  it('binding (wt): advertise-missing-capabilities leaves maxConcurrentStreams out of result.transport', async () => {
    const initialize = async (server: RunningMockServer) => {
      const connection = await connectWebTransport(server.url, { certificateHash: server.certificateHash! });
      try {
        return (await initializeSession(connection, { timeoutMs: 15_000 })).transport;
      } finally {
        await connection.close();
      }
    };
    const healthy = await initialize(await start({ transport: 'wt', limits: { maxConcurrentStreams: 5 } }));
    expect(healthy?.maxConcurrentStreams).toBe(5);
    const broken = await initialize(await start({ transport: 'wt', limits: { maxConcurrentStreams: 5 }, faults: ['advertise-missing-capabilities'] }));
    expect(broken).toBeDefined();
    expect(broken).not.toHaveProperty('maxConcurrentStreams');
  });

  it('the catalog of a WebTransport server holds the core, flow and binding faults', async () => {
    const server = await start({ transport: 'wt' });
    const names = server.catalog.map((fault) => fault.name);
    for (const fault of WEBTRANSPORT_FAULTS) expect(names).toContain(fault.name);
    expect(names).toContain('ping-non-empty-result');
    expect(names).toContain('start-without-state');
    expect(new Set(names).size).toBe(names.length);
  });

  it('refuses an unknown fault with UnknownFaultError naming the closest names', async () => {
    const error = await startMockServer({ transport: 'http', faults: ['start-without-stat'] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnknownFaultError);
    expect((error as UnknownFaultError).suggestions[0]).toBe('start-without-state');
    expect((error as Error).message).toContain('did you mean "start-without-state"');
  });

  it('refuses a known fault of a part it does not serve with FaultNotServedError', async () => {
    const fastworkflowFault = mockServerFaultCatalog().find((entry) => entry.layer === 'fastworkflow')!;
    const onWt = await startMockServer({ transport: 'wt', faults: [fastworkflowFault.name] }).catch((e: unknown) => e);
    expect(onWt).toBeInstanceOf(FaultNotServedError);
    expect((onWt as Error).message).toContain('FastWorkflow');
    const onHttp = await startMockServer({ transport: 'http', faults: [WEBTRANSPORT_FAULTS[0]!.name] }).catch((e: unknown) => e);
    expect(onHttp).toBeInstanceOf(FaultNotServedError);
    expect((onHttp as Error).message).toContain('--transport http');
  });

  it('every catalog entry names a requirement and a description, with no name twice', () => {
    const catalog = mockServerFaultCatalog();
    expect(new Set(catalog.map((entry) => entry.name)).size).toBe(catalog.length);
    for (const entry of catalog) {
      expect(entry.requirement).toMatch(/^(CORE|FLOW|WT|FW)-[A-Z]+-\d+$/);
      expect(entry.description.length).toBeGreaterThan(10);
    }
    expect(new Set(catalog.map((entry) => entry.layer))).toEqual(new Set(['core', 'flow', 'fastworkflow', 'webtransport', 'http']));
  });
});

describe('the Streamable HTTP listener speaks the versions the server core speaks', () => {
  it('an MCP-Protocol-Version the core was narrowed away from is a 400', async () => {
    const server = await start({ transport: 'http', server: { protocolVersions: ['2025-06-18', '2025-11-25'] } });
    const client = await openRaw(server);
    const status = async (version: string) =>
      (
        await client.connection.http!.request({
          headers: { 'MCP-Protocol-Version': version, Accept: 'application/json, text/event-stream', 'Content-Type': 'application/json' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 98, method: 'ping' }),
        })
      ).status;
    expect(await status('2025-06-18')).toBe(200);
    expect(await status('2024-11-05')).toBe(400);
    await client.connection.close();
  });
});
