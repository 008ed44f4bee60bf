// The core's reading switches (src/peer/server/core/readings.ts): each one, switched alone, makes
// the mock take the other reading the catalog accepts, and the presets differ on every switch.
import { describe, expect, it } from 'vitest';
import { barrier, startRaw, type RawSession } from './harness.js';
import {
  ALTERNATE_CORE_READINGS,
  CoreReadingsError,
  RECOMMENDED_CORE_READINGS,
  resolveCoreReadings,
  type CoreReadings,
} from '../../../../src/peer/server/core/readings.js';
import type { MockServerOptions } from '../../../../src/peer/server/server.js';

type Msg = Record<string, unknown>;
const code = (m: Msg | undefined) => (m?.['error'] as Msg | undefined)?.['code'];

async function withReadings<T>(readings: Partial<CoreReadings>, run: (s: RawSession) => Promise<T>, options: MockServerOptions = {}): Promise<T> {
  const session = startRaw({ ...options, coreReadings: readings });
  try {
    return await run(session);
  } finally {
    await session.close();
  }
}

describe('core reading presets', () => {
  it('the alternate preset takes another reading on every switch', () => {
    const same = (Object.keys(RECOMMENDED_CORE_READINGS) as (keyof CoreReadings)[]).filter((key) => RECOMMENDED_CORE_READINGS[key] === ALTERNATE_CORE_READINGS[key]);
    expect(same).toEqual([]);
  });

  it('resolves a preset with single switches over it, and refuses a code that is no integer', () => {
    expect(resolveCoreReadings('alternate', { batches: '2025-03-26' })).toMatchObject({ batches: '2025-03-26', secondInitialize: 'repeat' });
    expect(resolveCoreReadings()).toEqual(RECOMMENDED_CORE_READINGS);
    expect(() => resolveCoreReadings('recommended', { unknownToolCode: 1.5 })).toThrow(CoreReadingsError);
  });
});

describe('each core reading switched alone (in-memory)', () => {
  it('before initialize: a request refused with -32601, or the connection closed (CORE-LIFE-5)', async () => {
    expect(await withReadings({ beforeInitializeCode: -32601 }, async (s) => code(await s.request('tools/list')))).toBe(-32601);
    expect(await withReadings({}, async (s) => code(await s.request('tools/list')))).toBe(-32600);
    const closed = await withReadings({ beforeInitialize: 'close' }, async (s) => {
      await s.client.send({ jsonrpc: '2.0', id: 'early', method: 'tools/list' });
      return (await s.client.closed).initiator;
    });
    expect(closed).toBe('remote');
  });

  it('ping before initialize answered {} or refused (CORE-LIFE-13)', async () => {
    expect(await withReadings({}, async (s) => (await s.request('ping'))['result'])).toEqual({});
    expect(await withReadings({ pingBeforeInitialize: 'refuse' }, async (s) => code(await s.request('ping')))).toBe(-32600);
  });

  it('a second initialize refused, or answered with the session as negotiated (CORE-LIFE-8)', async () => {
    const again = (s: RawSession) => s.request('initialize', { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 't', version: '1' } });
    expect(await withReadings({}, async (s) => (await s.initialize(), code(await again(s))))).toBe(-32600);
    const repeated = await withReadings({ secondInitialize: 'repeat' }, async (s) => (await s.initialize('2025-06-18'), (await again(s))['result'] as Msg));
    expect(repeated['protocolVersion']).toBe('2025-06-18');
  });

  it('an unsupported version offered another, or refused as MCP\'s example does (CORE-VER-3)', async () => {
    expect(await withReadings({}, async (s) => ((await s.initialize('1999-01-01'))['result'] as Msg)['protocolVersion'])).toBe('2025-11-25');
    const refused = await withReadings({ unsupportedVersion: 'refuse' }, async (s) => (await s.initialize('1999-01-01'))['error'] as Msg);
    expect(refused).toMatchObject({ code: -32602, message: 'Unsupported protocol version', data: { requested: '1999-01-01' } });
  });

  it('an undeclared feature refused with -32601 or -32600 (CORE-CAP-3)', async () => {
    const options: MockServerOptions = { core: { prompts: false } };
    expect(await withReadings({}, async (s) => (await s.initialize(), code(await s.request('prompts/list'))), options)).toBe(-32601);
    expect(await withReadings({ undeclaredFeatureCode: -32600 }, async (s) => (await s.initialize(), code(await s.request('prompts/list'))), options)).toBe(-32600);
  });

  it('invalid envelopes: id echoed or null, jsonrpc served leniently, malformed responses ignored (CORE-RPC-9)', async () => {
    const answerTo = (message: Msg, readings: Partial<CoreReadings>) =>
      withReadings(readings, async (s) => {
        await s.initialize();
        await s.client.send(message);
        await barrier(s);
        return s.pending().find((m) => m['id'] === 'bad' || m['id'] === null);
      });
    expect(await answerTo({ jsonrpc: '1.0', id: 'bad', method: 'ping' }, {})).toMatchObject({ id: 'bad', error: { code: -32600 } });
    expect(await answerTo({ jsonrpc: '1.0', id: 'bad', method: 'ping' }, { invalidRequestId: 'null' })).toMatchObject({ id: null, error: { code: -32600 } });
    expect(await answerTo({ jsonrpc: '1.0', id: 'bad', method: 'ping' }, { lenientJsonrpc: true })).toMatchObject({ id: 'bad', result: {} });
    expect(await answerTo({ jsonrpc: '2.0', id: 'bad', result: {}, error: { code: 1, message: 'x' } }, {})).toMatchObject({ id: null, error: { code: -32600 } });
    expect(await answerTo({ jsonrpc: '2.0', id: 'bad', result: {}, error: { code: 1, message: 'x' } }, { malformedResponse: 'ignore' })).toBeUndefined();
  });

  it('positional params refused with -32602, or ignored (CORE-RPC-2)', async () => {
    const ping = (readings: Partial<CoreReadings>) => withReadings(readings, async (s) => (await s.initialize(), s.request('ping', ['positional'])));
    expect(code(await ping({}))).toBe(-32602);
    expect((await ping({ positionalParams: 'ignore' }))['result']).toEqual({});
  });

  it('batches under 2025-03-26 only, or under every version (C-30)', async () => {
    const batch = (readings: Partial<CoreReadings>) =>
      withReadings(readings, async (s) => {
        await s.initialize('2025-06-18');
        await s.client.send([{ jsonrpc: '2.0', id: 'b1', method: 'ping' }]);
        return s.next((m) => Array.isArray(m) || m['id'] === null);
      });
    expect(code(await batch({}))).toBe(-32600);
    expect(await batch({ batches: 'every-version' })).toEqual([{ jsonrpc: '2.0', id: 'b1', result: {} }]);
  });

  it('an unknown tool -32602 or -32601 (CORE-TOOLS-2), an unknown prompt -32602 or -32601 (CORE-PROMPTS-3), a missing name -32602 either way', async () => {
    const probe = (readings: Partial<CoreReadings>) =>
      withReadings(readings, async (s) => {
        await s.initialize();
        return [
          code(await s.request('tools/call', { name: 'no-such-tool', arguments: {} })),
          code(await s.request('prompts/get', { name: 'no-such-prompt' })),
          code(await s.request('prompts/get', {})),
        ];
      });
    expect(await probe({})).toEqual([-32602, -32602, -32602]);
    expect(await probe({ unknownToolCode: -32601, unknownPromptCode: -32601 })).toEqual([-32601, -32601, -32602]);
  });

  it('invalid tool arguments: -32602, or an isError result under 2025-11-25 only (CORE-TOOLS-4)', async () => {
    const call = (version: string, readings: Partial<CoreReadings>) =>
      withReadings(readings, async (s) => (await s.initialize(version), s.request('tools/call', { name: 'touch', arguments: { uri: 42 } })));
    expect(code(await call('2025-11-25', {}))).toBe(-32602);
    expect((await call('2025-11-25', { invalidArguments: 'tool-error-2025-11-25' }))['result']).toMatchObject({ isError: true });
    expect(code(await call('2025-06-18', { invalidArguments: 'tool-error-2025-11-25' }))).toBe(-32602);
  });

  it('an argument member the inputSchema forbids rejected, or ignored (CORE-TOOLS-4, CORE-RPC-15)', async () => {
    const call = (readings: Partial<CoreReadings>) =>
      withReadings(readings, async (s) => (await s.initialize(), s.request('tools/call', { name: 'touch', arguments: { uri: 'mock://counter', extra: 1 } })));
    expect(code(await call({}))).toBe(-32602);
    expect((await call({ forbiddenArgumentMembers: 'ignore' }))['result']).toMatchObject({ content: [{ type: 'text' }] });
  });

  it('an unknown resource -32002, or -32001 and -32602 for a scheme not served (CORE-RES-2)', async () => {
    const read = (readings: Partial<CoreReadings>) =>
      withReadings(readings, async (s) => {
        await s.initialize();
        return [code(await s.request('resources/read', { uri: 'mock://nothing' })), code(await s.request('resources/read', { uri: 'file:///nothing' }))];
      });
    expect(await read({})).toEqual([-32002, -32002]);
    expect(await read({ resourceNotFound: 'seed' })).toEqual([-32001, -32602]);
  });

  it('subscriptions to any listed resource, or to those that change only (CORE-RES-7)', async () => {
    const subscribe = (readings: Partial<CoreReadings>) =>
      withReadings(readings, async (s) => {
        await s.initialize();
        return [code(await s.request('resources/subscribe', { uri: 'mock://docs/readme.md' })), code(await s.request('resources/subscribe', { uri: 'mock://counter' }))];
      });
    expect(await subscribe({})).toEqual([undefined, undefined]);
    expect(await subscribe({ subscribe: 'changing-only' })).toEqual([-32602, undefined]);
  });

  it('extension members: _meta in core results, an extra serverInfo member, an extension capability (rule 4)', async () => {
    const seen = await withReadings({ extensionMembers: true }, async (s) => {
      const init = (await s.initialize())['result'] as Msg;
      return { init, ping: (await s.request('ping'))['result'] as Msg };
    });
    expect(seen.ping).toEqual({ _meta: { 'dev.mcp-flow-conformance/readings': 'alternate' } });
    expect(seen.init['serverInfo']).toMatchObject({ 'x-mcp-flow-conformance-readings': 'alternate' });
    expect((seen.init['capabilities'] as Msg)['x-mcp-flow-conformance-readings']).toBe('alternate');
    expect(seen.init['_meta']).toBeDefined();
    const plain = await withReadings({}, async (s) => (await s.initialize(), (await s.request('ping'))['result']));
    expect(plain).toEqual({});
  });
});
