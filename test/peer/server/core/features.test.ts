import { afterEach, describe, expect, it } from 'vitest';
import { barrier, startRaw, type RawSession } from './harness.js';
import { RpcError } from '../../../../src/peer/server/extension.js';
import { ClientFeatureUnavailableError, ServerRequestTimeoutError } from '../../../../src/peer/server/core/errors.js';

let session: RawSession;
afterEach(async () => {
  await session?.close();
});

type Msg = Record<string, unknown>;
const result = (m: Msg) => m['result'] as Record<string, unknown>;

describe('mock server features (over the in-memory pair)', () => {
  it('lists tools with input schemas; outputSchema only from 2025-06-18 (CORE-TOOLS-1)', async () => {
    session = startRaw();
    await session.initialize('2025-06-18');
    const tools = result(await session.request('tools/list'))['tools'] as Msg[];
    expect(tools.map((t) => t['name'])).toEqual(expect.arrayContaining(['echo', 'add', 'slow', 'fail', 'raise', 'log', 'sample', 'elicit', 'download', 'touch']));
    for (const tool of tools) expect(tool['inputSchema']).toMatchObject({ type: 'object' });
    expect(tools.find((t) => t['name'] === 'add')!['outputSchema']).toBeDefined();
    await session.close();
    session = startRaw();
    await session.initialize('2025-03-26');
    const old = result(await session.request('tools/list'))['tools'] as Msg[];
    expect(old.find((t) => t['name'] === 'add')!['outputSchema']).toBeUndefined();
  });

  it('calls tools, validates arguments and reports failures as isError (CORE-TOOLS-2..6)', async () => {
    session = startRaw();
    await session.initialize();
    expect(result(await session.request('tools/call', { name: 'add', arguments: { a: 2, b: 3 } }))).toEqual({
      content: [{ type: 'text', text: '5' }],
      structuredContent: { sum: 5 },
    });
    expect((await session.request('tools/call', { name: 'add', arguments: { a: 'two', b: 3 } }))['error']).toMatchObject({ code: -32602 });
    expect((await session.request('tools/call', { name: 'nope', arguments: {} }))['error']).toMatchObject({ code: -32602 });
    expect((await session.request('tools/call', { name: 'raise', arguments: { code: -32050, message: 'custom', data: { x: 1 } } }))['error']).toEqual({
      code: -32050,
      message: 'custom',
      data: { x: 1 },
    });
    expect(result(await session.request('tools/call', { name: 'fail', arguments: { message: 'boom' } }))).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: expect.stringContaining('boom') }],
    });
  });

  it('download returns the bytes as a base64 blob outside WebTransport', async () => {
    session = startRaw();
    await session.initialize();
    const answer = result(await session.request('tools/call', { name: 'download', arguments: { bytes: 300 } }));
    const blob = ((answer['content'] as Msg[])[0]!['resource'] as Msg)['blob'] as string;
    const bytes = Buffer.from(blob, 'base64');
    expect(bytes.length).toBe(300);
    expect(bytes[257]).toBe(1);
  });

  it('paginates resources with opaque cursors that end, and refuses unknown cursors (CORE-PAGE-1..3)', async () => {
    session = startRaw({ core: { pageSize: 10 } });
    await session.initialize();
    const seen: string[] = [];
    const cursors = new Set<string>();
    let cursor: string | undefined;
    do {
      const page = result(await session.request('resources/list', cursor === undefined ? {} : { cursor }));
      seen.push(...(page['resources'] as Msg[]).map((r) => r['uri'] as string));
      cursor = page['nextCursor'] as string | undefined;
      if (cursor !== undefined) {
        expect(cursors.has(cursor)).toBe(false);
        cursors.add(cursor);
      }
    } while (cursor !== undefined);
    expect(seen).toHaveLength(25);
    expect(new Set(seen).size).toBe(25);
    expect((await session.request('resources/list', { cursor: 'bogus' }))['error']).toMatchObject({ code: -32602 });
  });

  it('reads resources, templates and refuses unknown or escaping URIs (CORE-RES-2..4, CORE-RES-6)', async () => {
    session = startRaw();
    await session.initialize();
    expect(result(await session.request('resources/read', { uri: 'mock://docs/readme.md' }))['contents']).toEqual([
      expect.objectContaining({ uri: 'mock://docs/readme.md', text: expect.any(String) }),
    ]);
    expect(result(await session.request('resources/read', { uri: 'mock://binary/logo.bin' }))['contents']).toEqual([
      expect.objectContaining({ blob: expect.any(String) }),
    ]);
    expect(result(await session.request('resources/read', { uri: 'mock://items/abc' }))['contents']).toEqual([
      expect.objectContaining({ text: expect.stringContaining('abc') }),
    ]);
    expect((await session.request('resources/read', { uri: 'mock://missing' }))['error']).toMatchObject({ code: -32002 });
    expect((await session.request('resources/read', { uri: 'mock://docs/../../etc/passwd' }))['error']).toMatchObject({ code: -32602 });
    expect(result(await session.request('resources/templates/list'))['resourceTemplates']).toEqual([
      expect.objectContaining({ uriTemplate: 'mock://items/{id}', name: 'item' }),
    ]);
  });

  it('notifies subscribers of updates, and only them (CORE-RES-5, CORE-RES-7)', async () => {
    session = startRaw();
    await session.initialize();
    await session.request('tools/call', { name: 'touch', arguments: { uri: 'mock://counter' } });
    await barrier(session);
    expect(session.pending()).toEqual([]);
    expect(result(await session.request('resources/subscribe', { uri: 'mock://counter' }))).toEqual({});
    await session.request('tools/call', { name: 'touch', arguments: { uri: 'mock://counter' } });
    expect(await session.next((m) => m['method'] === 'notifications/resources/updated')).toMatchObject({ params: { uri: 'mock://counter' } });
    expect(result(await session.request('resources/read', { uri: 'mock://counter' }))['contents']).toEqual([expect.objectContaining({ text: '2' })]);
    expect(result(await session.request('resources/unsubscribe', { uri: 'mock://counter' }))).toEqual({});
    await session.request('tools/call', { name: 'touch', arguments: { uri: 'mock://counter' } });
    await barrier(session);
    expect(session.pending()).toEqual([]);
  });

  it('notifies subscribers on a timer when updateIntervalMs is set', async () => {
    session = startRaw({ core: { updateIntervalMs: 5 } });
    await session.initialize();
    await session.request('resources/subscribe', { uri: 'mock://counter' });
    expect(await session.next((m) => m['method'] === 'notifications/resources/updated')).toMatchObject({ params: { uri: 'mock://counter' } });
  });

  it('serves prompts with arguments and completions (CORE-PROMPTS-1..3)', async () => {
    session = startRaw();
    await session.initialize();
    const prompts = result(await session.request('prompts/list'))['prompts'] as Msg[];
    expect(prompts.find((p) => p['name'] === 'greeting')!['arguments']).toEqual([
      expect.objectContaining({ name: 'name', required: true }),
      expect.objectContaining({ name: 'style', required: false }),
    ]);
    expect(result(await session.request('prompts/get', { name: 'greeting', arguments: { name: 'Ada', style: 'formal' } }))['messages']).toEqual([
      { role: 'user', content: { type: 'text', text: 'Good day, Ada.' } },
    ]);
    expect((await session.request('prompts/get', { name: 'greeting', arguments: {} }))['error']).toMatchObject({ code: -32602 });
    expect((await session.request('prompts/get', { name: 'nope' }))['error']).toMatchObject({ code: -32602 });
    const completion = result(
      await session.request('completion/complete', { ref: { type: 'ref/prompt', name: 'greeting' }, argument: { name: 'name', value: 'a' } }),
    );
    expect(completion['completion']).toEqual({ values: ['Ada', 'Alan'], total: 2, hasMore: false });
  });

  it('honours logging/setLevel and refuses unknown levels (CORE-LOG-1..4)', async () => {
    session = startRaw();
    await session.initialize();
    expect((await session.request('logging/setLevel', { level: 'loud' }))['error']).toMatchObject({ code: -32602 });
    expect(result(await session.request('logging/setLevel', { level: 'warning' }))).toEqual({});
    await session.request('tools/call', { name: 'log', arguments: { level: 'info', message: 'quiet' } });
    await session.request('tools/call', { name: 'log', arguments: { level: 'error', message: 'loud', logger: 'test' } });
    expect(await session.next((m) => m['method'] === 'notifications/message')).toMatchObject({
      params: { level: 'error', data: 'loud', logger: 'test' },
    });
    await barrier(session);
    expect(session.pending()).toEqual([]);
  });

  it('reports increasing progress for a progressToken and none after the response (CORE-PROG-1..4)', async () => {
    session = startRaw();
    await session.initialize();
    const answer = await session.request('tools/call', { name: 'slow', arguments: { steps: 3, stepMs: 1 }, _meta: { progressToken: 'tok' } });
    expect(result(answer)['content']).toEqual([{ type: 'text', text: 'completed 3 steps' }]);
    const progress = session.pending().filter((m) => m['method'] === 'notifications/progress');
    expect(progress.map((m) => (m['params'] as Msg)['progress'])).toEqual([1, 2, 3]);
    expect(progress.every((m) => (m['params'] as Msg)['progressToken'] === 'tok')).toBe(true);
  });

  it('stops a request cancelled with notifications/cancelled and sends no answer (CORE-CANCEL-2, CORE-CANCEL-4)', async () => {
    session = startRaw();
    await session.initialize();
    await session.client.send({ jsonrpc: '2.0', id: 'long', method: 'tools/call', params: { name: 'slow', arguments: { steps: 100000, stepMs: 5 }, _meta: { progressToken: 1 } } });
    await session.next((m) => m['method'] === 'notifications/progress');
    await session.notify('notifications/cancelled', { requestId: 'long', reason: 'test' });
    await session.notify('notifications/cancelled', { requestId: 'never-sent' });
    await barrier(session);
    expect(session.pending().filter((m) => m['id'] === 'long' || m['id'] === 'never-sent')).toEqual([]);
  });

  it('answers a request cancelled with $/cancel with -32000 Cancelled (WT-CANCEL-1, WT-CANCEL-2, WT-CANCEL-4)', async () => {
    session = startRaw();
    await session.initialize();
    await session.client.send({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'slow', arguments: { steps: 100000, stepMs: 5 }, _meta: { progressToken: 1 } } });
    await session.next((m) => m['method'] === 'notifications/progress');
    await session.notify('$/cancel', { requestId: 9 });
    expect(await session.next((m) => m['id'] === 9)).toMatchObject({ error: { code: -32000, message: 'Cancelled' } });
    await session.notify('$/cancel', { requestId: 9 });
    await barrier(session);
    expect(session.pending().filter((m) => m['id'] === 9)).toEqual([]);
  });

  it('serves concurrent requests independently', async () => {
    session = startRaw();
    await session.initialize();
    await session.client.send({ jsonrpc: '2.0', id: 'slow', method: 'tools/call', params: { name: 'slow', arguments: { steps: 100000, stepMs: 5 } } });
    expect(result(await session.request('tools/call', { name: 'echo', arguments: { text: 'meanwhile' } }))['content']).toEqual([
      { type: 'text', text: 'meanwhile' },
    ]);
    await session.notify('notifications/cancelled', { requestId: 'slow' });
  });

  it('sends sampling/createMessage only to clients that declared sampling, correlating the answer (CORE-CAP-2)', async () => {
    session = startRaw();
    await session.initialize('2025-11-25', {});
    expect(result(await session.request('tools/call', { name: 'sample', arguments: { prompt: 'hi' } }))['isError']).toBe(true);
    await session.close();

    session = startRaw();
    await session.initialize('2025-11-25', { sampling: {} });
    await session.client.send({ jsonrpc: '2.0', id: 's', method: 'tools/call', params: { name: 'sample', arguments: { prompt: 'hi' } } });
    const asked = await session.next((m) => m['method'] === 'sampling/createMessage');
    await session.client.send({ jsonrpc: '2.0', id: asked['id'], result: { role: 'assistant', content: { type: 'text', text: 'hello there' }, model: 'm' } });
    expect(result(await session.next((m) => m['id'] === 's'))['content']).toEqual([{ type: 'text', text: 'hello there' }]);

    await session.client.send({ jsonrpc: '2.0', id: 't', method: 'tools/call', params: { name: 'sample', arguments: { prompt: 'hi' } } });
    const again = await session.next((m) => m['method'] === 'sampling/createMessage');
    await session.client.send({ jsonrpc: '2.0', id: again['id'], error: { code: -1, message: 'user denied' } });
    expect(result(await session.next((m) => m['id'] === 't'))).toMatchObject({ isError: true, content: [{ text: expect.stringContaining('user denied') }] });
  });

  it('gives extensions sendRequest with typed errors and a deadline', async () => {
    const seen: unknown[] = [];
    const probe = {
      name: 'probe',
      requests: {
        'probe/ask': async (_params: unknown, ctx: import('../../../../src/peer/server/extension.js').RequestContext) => {
          await ctx.sendRequest('roots/list').catch((error: unknown) => seen.push(error));
          return {};
        },
      },
    };
    session = startRaw({ requestTimeoutMs: 50, extensions: [probe] });
    await session.initialize('2025-11-25', {});
    await session.request('probe/ask');
    expect(seen[0]).toBeInstanceOf(ClientFeatureUnavailableError);
    expect(session.pending().filter((m) => m['method'] === 'roots/list')).toEqual([]);
    await session.close();

    session = startRaw({ requestTimeoutMs: 50, extensions: [probe] });
    await session.initialize('2025-11-25', { roots: {} });
    await session.request('probe/ask');
    expect(seen[1]).toBeInstanceOf(ServerRequestTimeoutError);
    expect(seen[1]).not.toBeInstanceOf(RpcError);
  });

  it('elicits through the client when it declared elicitation under 2025-06-18 or later', async () => {
    session = startRaw();
    await session.initialize('2025-06-18', { elicitation: {} });
    await session.client.send({ jsonrpc: '2.0', id: 'e', method: 'tools/call', params: { name: 'elicit', arguments: { message: 'Name?' } } });
    const asked = await session.next((m) => m['method'] === 'elicitation/create');
    expect(asked['params']).toMatchObject({ message: 'Name?', requestedSchema: { type: 'object' } });
    await session.client.send({ jsonrpc: '2.0', id: asked['id'], result: { action: 'accept', content: { answer: 'Ada' } } });
    expect(result(await session.next((m) => m['id'] === 'e'))['structuredContent']).toEqual({ action: 'accept', content: { answer: 'Ada' } });
  });
});
