import { afterEach, describe, expect, it } from 'vitest';
import { barrier, startRaw, type RawSession } from './harness.js';

let session: RawSession;
afterEach(async () => {
  await session?.close();
});

const clientInfo = { name: 'raw-test-client', version: '1.0.0' };

describe('mock server lifecycle and JSON-RPC (over the in-memory pair)', () => {
  it('refuses requests before initialize with -32600 but answers ping (CORE-LIFE-5, CORE-LIFE-13)', async () => {
    session = startRaw();
    const early = await session.request('tools/list', {}, 1);
    expect(early['error']).toMatchObject({ code: -32600 });
    expect(await session.request('ping', undefined, 2)).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
  });

  it('answers initialize with the client version, capabilities and serverInfo (CORE-LIFE-3, CORE-VER-2)', async () => {
    session = startRaw();
    for (const version of ['2025-11-25']) {
      const answer = await session.initialize(version);
      const result = answer['result'] as Record<string, unknown>;
      expect(result['protocolVersion']).toBe(version);
      expect(result['serverInfo']).toMatchObject({ name: expect.any(String), version: expect.any(String) });
      expect(result['capabilities']).toMatchObject({ tools: {}, resources: { subscribe: true }, prompts: {}, logging: {}, completions: {} });
    }
  });

  it.each(['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'])('echoes supported version %s', async (version) => {
    session = startRaw();
    const answer = await session.initialize(version);
    expect((answer['result'] as Record<string, unknown>)['protocolVersion']).toBe(version);
    const caps = (answer['result'] as Record<string, Record<string, unknown>>)['capabilities']!;
    expect('completions' in caps).toBe(version !== '2024-11-05');
  });

  it('offers its latest version for an unsupported one (CORE-VER-3, CORE-VER-4)', async () => {
    session = startRaw({ protocolVersions: ['2024-11-05', '2025-03-26'] });
    const answer = await session.initialize('2099-01-01');
    expect((answer['result'] as Record<string, unknown>)['protocolVersion']).toBe('2025-03-26');
  });

  it('refuses a second initialize and keeps the session (CORE-LIFE-8)', async () => {
    session = startRaw();
    await session.initialize('2025-06-18');
    const again = await session.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo });
    expect(again['error']).toMatchObject({ code: -32600 });
    expect((await session.request('tools/list'))['result']).toBeDefined();
  });

  it('answers malformed initialize params with -32602', async () => {
    session = startRaw();
    const answer = await session.request('initialize', { protocolVersion: 5, capabilities: {}, clientInfo });
    expect(answer['error']).toMatchObject({ code: -32602 });
  });

  it('answers unparseable lines with -32700 and id null, then keeps serving (CORE-RPC-8)', async () => {
    session = startRaw();
    await session.client.sendRaw(new TextEncoder().encode('{"jsonrpc": "2.0", "id": 1, \n'));
    expect(await session.next()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
    await barrier(session);
  });

  it('answers invalid requests with -32600, echoing the id only when readable (CORE-RPC-9)', async () => {
    session = startRaw();
    await session.initialize();
    await session.client.send({ jsonrpc: '1.0', id: 7, method: 'ping' });
    expect(await session.next()).toMatchObject({ id: 7, error: { code: -32600 } });
    await session.client.send({ jsonrpc: '2.0', id: null, method: 'ping' });
    expect(await session.next()).toMatchObject({ id: null, error: { code: -32600 } });
    await session.client.send({ jsonrpc: '2.0', id: 1.5, method: 'ping' });
    expect(await session.next()).toMatchObject({ id: null, error: { code: -32600 } });
    await session.client.send({ jsonrpc: '2.0', id: 8, method: 42 });
    expect(await session.next()).toMatchObject({ id: 8, error: { code: -32600 } });
    await session.client.send('just a string');
    expect(await session.next()).toMatchObject({ id: null, error: { code: -32600 } });
  });

  it('answers unknown methods with -32601 and positional params with -32602 (CORE-RPC-10, CORE-RPC-11)', async () => {
    session = startRaw();
    await session.initialize();
    expect((await session.request('no/such/method'))['error']).toMatchObject({ code: -32601 });
    expect((await session.request('tools/call', ['echo']))['error']).toMatchObject({ code: -32602 });
    expect((await session.request('tools/call', {}))['error']).toMatchObject({ code: -32602 });
  });

  it('echoes string and integer ids unchanged (CORE-RPC-5, CORE-RPC-12)', async () => {
    session = startRaw();
    await session.initialize();
    expect(await session.request('ping', undefined, '7')).toEqual({ jsonrpc: '2.0', id: '7', result: {} });
    expect(await session.request('ping', undefined, 7)).toEqual({ jsonrpc: '2.0', id: 7, result: {} });
  });

  it('sends nothing for notifications, known or not (CORE-RPC-6)', async () => {
    session = startRaw();
    await session.initialize();
    await session.notify('notifications/unknown-thing', { x: 1 });
    await session.notify('notifications/roots/list_changed');
    await barrier(session);
    expect(session.pending()).toEqual([]);
  });

  it('serves a batch under 2025-03-26 and refuses one under other versions (CORE-RPC-13, C-30)', async () => {
    session = startRaw();
    await session.initialize('2025-03-26');
    await session.client.send([
      { jsonrpc: '2.0', id: 'a', method: 'ping' },
      { jsonrpc: '2.0', method: 'notifications/whatever' },
      { jsonrpc: '2.0', id: 'b', method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } },
    ]);
    const batch = (await session.next((m) => Array.isArray(m))) as unknown as Record<string, unknown>[];
    expect(batch).toHaveLength(2);
    expect(batch.find((m) => m['id'] === 'a')).toEqual({ jsonrpc: '2.0', id: 'a', result: {} });
    expect(batch.find((m) => m['id'] === 'b')).toMatchObject({ result: { content: [{ type: 'text', text: 'hi' }] } });
    await session.close();

    session = startRaw();
    await session.initialize('2025-06-18');
    await session.client.send([{ jsonrpc: '2.0', id: 'a', method: 'ping' }]);
    expect(await session.next()).toMatchObject({ id: null, error: { code: -32600 } });
  });

  it('answers methods of undeclared capabilities with -32601 (CORE-CAP-3, CORE-CAP-4)', async () => {
    session = startRaw({ core: { prompts: false, subscribe: false } });
    const init = await session.initialize();
    expect((init['result'] as Record<string, Record<string, unknown>>)['capabilities']!['prompts']).toBeUndefined();
    expect((await session.request('prompts/list'))['error']).toMatchObject({ code: -32601 });
    expect((await session.request('resources/subscribe', { uri: 'mock://counter' }))['error']).toMatchObject({ code: -32601 });
    expect((await session.request('resources/list'))['result']).toBeDefined();
  });

  it('answers methods the negotiated version lacks with -32601 (CORE-LIFE-11)', async () => {
    session = startRaw({ extensions: [{ name: 'tasks', requests: { 'tasks/list': async () => ({ tasks: [] }) } }] });
    await session.initialize('2025-06-18');
    expect((await session.request('tasks/list'))['error']).toMatchObject({ code: -32601 });
  });

  it('answers an unexpected failure with -32603 and stays usable (CORE-ERR-2)', async () => {
    session = startRaw();
    await session.initialize();
    expect((await session.request('resources/read', { uri: 'mock://broken' }))['error']).toMatchObject({ code: -32603 });
    await barrier(session);
  });

  it('ends serve() when the connection closes', async () => {
    session = startRaw();
    await session.initialize();
    await session.client.close();
    await expect(session.served).resolves.toBeUndefined();
  });
});
