// Every fault of the mock client changes what goes on the wire: each probe runs the same exchange
// against a client without and with the fault and compares what the server side observed. The
// server side is scripted by hand (an in-memory pair, or a WebTransport listener) so each probe
// can do what the fault is about (answer initialize with an error, inject a stream, send garbage...).
// The probes of the faults added for issue 16 are in probes/ (core, flow, webtransport).
import { describe, expect, it } from 'vitest';
import { MOCK_CLIENT_FAULTS, mockClientFaultCatalog, MOCK_CLIENT_FAULT as F, ClientFaults, UnknownClientFaultError, scriptedAnswerer, connectMockClient } from '../../../src/peer/client/index.js';
import { ConnectionClosedError } from '../../../src/transport/errors.js';
import { encodeFrame } from '../../../src/wire/index.js';
import { startMockServer } from '../../../src/peer/server/index.js';
import { readCatalog } from '../../../src/protocol/requirements.js';
import { DEADLINE, isRequest, isResponseTo, type Message } from './support.js';
import { answerNext, completion, describeProbes, initialized, inject, method, startSession, sync, type Probe } from './probes/support.js';
import { CORE_PROBES } from './probes/core.js';
import { FLOW_PROBES } from './probes/flow.js';
import { WEBTRANSPORT_PROBES } from './probes/webtransport.js';

const ORIGINAL_PROBES: Record<string, Probe> = {
  [F.requestBeforeInitialize]: {
    transport: 'memory',
    async run(peer) {
      const init = peer!.client.initialize();
      const { message } = await peer!.server.next((r) => typeof (r.message as Message).method === 'string', DEADLINE);
      if ((message as Message).method !== 'initialize') {
        await peer!.server.send({ jsonrpc: '2.0', id: (message as Message).id, error: { code: -32600, message: 'initialize first' } });
        await peer!.answerInitialize();
      } else await peer!.answerInitialize(undefined, message as Message);
      await init;
      return (message as Message).method;
    },
  },
  [F.initializeInCbor]: {
    transport: 'wt',
    async run(peer) {
      await peer!.client.initialize().catch(() => undefined);
      const first = peer!.server.transcript.entries().find((e) => e.direction === 'received' && e.channel.kind === 'control');
      return first?.hex?.slice(8, 10) === '7b' ? 'json' : 'not json';
    },
  },
  [F.noTransportExtension]: {
    transport: 'wt',
    async run(peer) {
      const init = peer!.client.initialize();
      const request = await peer!.answerInitialize();
      await init;
      return request.params.transport;
    },
  },
  [F.noInitializedNotification]: {
    transport: 'memory',
    async run(peer) {
      await initialized(peer!);
      const listing = peer!.client.listTools().catch(() => undefined);
      const { message } = await peer!.server.next(undefined, DEADLINE);
      await peer!.client.close();
      await listing;
      return method(message as Message);
    },
  },
  [F.encodingNotSwitched]: {
    transport: 'wt',
    async run(peer) {
      await initialized(peer!);
      // The client's own record of the frame that carried notifications/initialized (first body byte).
      const sent = peer!.client.connection.transcript.entries().filter((e) => e.direction === 'sent' && e.channel.kind === 'control');
      return sent.slice(1).map((e) => (e.hex?.slice(8, 10) === '7b' ? 'json' : 'cbor'));
    },
  },
  [F.sendBeforeInitializeResult]: {
    transport: 'wt',
    async run(peer) {
      await initialized(peer!);
      await sync(peer!.server);
      return peer!.server.faults().map((fault) => fault.code);
    },
  },
  [F.pingUnanswered]: {
    transport: 'memory',
    async run(peer) {
      await initialized(peer!);
      await peer!.server.send({ jsonrpc: '2.0', id: 'p1', method: 'ping' });
      return (await sync(peer!.server)).filter((m) => !m.method).map(method);
    },
  },
  [F.samplingServedUndeclared]: {
    transport: 'memory',
    async run(peer) {
      await initialized(peer!);
      await peer!.server.send({ jsonrpc: '2.0', id: 's1', method: 'sampling/createMessage', params: { messages: [], maxTokens: 5 } });
      return method((await peer!.server.next(isResponseTo('s1'), DEADLINE)).message as Message);
    },
  },
  [F.interactionRequestServed]: {
    transport: 'memory',
    async run(peer) {
      await initialized(peer!);
      await peer!.server.send({ jsonrpc: '2.0', id: 'i1', method: 'interaction.start', params: { toolName: 'x' } });
      return method((await peer!.server.next(isResponseTo('i1'), DEADLINE)).message as Message);
    },
  },
  [F.unknownSessionPromptAcknowledged]: {
    transport: 'memory',
    async run(peer) {
      await initialized(peer!);
      await peer!.server.send({ jsonrpc: '2.0', id: 'u1', method: 'interaction.prompt', params: { sessionId: 'nobody', prompt: { type: 'text', message: '?' } } });
      return (await peer!.server.next(isResponseTo('u1'), DEADLINE)).message;
    },
  },
  [F.completeWithoutSuccess]: {
    transport: 'memory',
    async run(peer) {
      return (await completion(peer!)).result;
    },
  },
  [F.finalResultNotData]: {
    transport: 'memory',
    async run(peer) {
      return (await completion(peer!)).result;
    },
  },
  [F.cursorModified]: {
    transport: 'memory',
    async run(peer) {
      await initialized(peer!);
      const listing = peer!.client.listTools();
      await answerNext(peer!.server, 'tools/list', { tools: [{ name: 'a', inputSchema: { type: 'object' } }], nextCursor: 'page-2' });
      const second = await answerNext(peer!.server, 'tools/list', { tools: [] });
      await listing.catch(() => undefined);
      return second.params?.cursor;
    },
  },
  [F.requestAfterInitializeError]: {
    transport: 'memory',
    async run(peer) {
      const init = peer!.client.initialize();
      await peer!.answerInitialize({ error: { code: -32602, message: 'no' } });
      await init.catch(() => undefined);
      return (await sync(peer!.server)).map(method);
    },
  },
  [F.continueAfterVersionMismatch]: {
    transport: 'memory',
    async run(peer) {
      const init = peer!.client.initialize();
      await peer!.answerInitialize({ protocolVersion: '1999-01-01' });
      await init.catch(() => undefined);
      try {
        return method((await peer!.server.next(undefined, DEADLINE)).message as Message);
      } catch (error) {
        return error instanceof ConnectionClosedError ? 'disconnected' : String(error);
      }
    },
  },
  [F.noProtocolVersionHeader]: {
    transport: 'http',
    async run(_peer, faults) {
      const server = await startMockServer({ transport: 'http', fastworkflow: false });
      try {
        const client = await connectMockClient({ url: server.url }, { faults, requestTimeoutMs: DEADLINE.timeoutMs });
        await client.initialize();
        await client.listTools();
        await client.close();
        const posts = client.connection.transcript.entries().filter((e) => e.direction === 'sent' && e.channel.kind === 'http' && e.channel.method === 'POST');
        return posts.slice(1).map((e) => (e.channel.kind === 'http' ? e.channel.headers?.['MCP-Protocol-Version'] ?? null : null));
      } finally {
        await server.close();
      }
    },
  },
  [F.requestIdReused]: {
    transport: 'memory',
    async run(peer) {
      await initialized(peer!);
      const ids: unknown[] = [];
      for (let i = 0; i < 2; i++) {
        const listing = peer!.client.listTools();
        ids.push((await answerNext(peer!.server, 'tools/list', { tools: [] })).id);
        await listing;
      }
      return new Set(ids).size;
    },
  },
  [F.notificationAnswered]: {
    transport: 'memory',
    async run(peer) {
      await initialized(peer!);
      await peer!.server.send({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'hello' } });
      return (await sync(peer!.server)).map(method);
    },
  },
  [F.acceptInjectedStream]: {
    transport: 'wt',
    async run(peer) {
      await initialized(peer!);
      return inject(peer!);
    },
  },
  [F.injectionUnreported]: {
    transport: 'wt',
    async run(peer) {
      await initialized(peer!);
      return inject(peer!);
    },
  },
  [F.danglingStreamRefIgnored]: {
    transport: 'wt',
    async run(peer) {
      await initialized(peer!);
      const call = peer!.client.callTool('export', {});
      await answerNext(peer!.server, 'tools/call', { content: [{ type: 'ref/stream', streamTag: 7, mimeType: 'text/plain' }] });
      const outcome = await call;
      return { ok: outcome.ok, before: (await sync(peer!.server)).map(method) };
    },
  },
  [F.streamErrorAnswered]: {
    transport: 'wt',
    async run(peer) {
      await initialized(peer!);
      await peer!.server.send({ jsonrpc: '2.0', method: '$/streamError', params: { requestId: 4242, streamTag: 1, error: 'gone' } });
      return (await sync(peer!.server)).map(method);
    },
  },
  [F.parseErrorUnanswered]: {
    transport: 'wt',
    async run(peer) {
      await initialized(peer!);
      // 0x1c: a CBOR initial byte with reserved additional information (does not decode).
      await peer!.server.sendRaw(encodeFrame(new Uint8Array([0x1c])));
      return (await sync(peer!.server)).map(method);
    },
  },
  [F.stopsAfterParseError]: {
    transport: 'wt',
    async run(peer) {
      await initialized(peer!);
      await peer!.server.sendRaw(encodeFrame(new Uint8Array([0x1c])));
      await peer!.server.send({ jsonrpc: '2.0', id: 'after', method: 'ping' });
      try {
        return method((await peer!.server.next(isResponseTo('after'), { timeoutMs: 3000 })).message as Message);
      } catch {
        return 'no answer';
      }
    },
  },
  [F.requestsAfterShutdown]: {
    transport: 'wt',
    async run(peer) {
      await initialized(peer!);
      const seen: string[] = [];
      const shutdown = peer!.server.webtransport!.shutdown();
      for (;;) {
        try {
          const next = method((await peer!.server.next(undefined, DEADLINE)).message as Message);
          if (next !== 'notifications/initialized') seen.push(next);
        } catch {
          break;
        }
      }
      await shutdown;
      return seen;
    },
  },
  [F.oversizedFrame]: {
    transport: 'wt',
    async run(peer) {
      await initialized(peer!);
      try {
        await peer!.client.callTool('echo', { text: 'x'.repeat(4096) });
        return 'answered';
      } catch (error) {
        return (error as { code?: string }).code === 'LIMIT_EXCEEDED' ? 'refused locally' : 'sent';
      }
    },
  },
  [F.noCancelOnAbort]: {
    transport: 'memory',
    async run(peer) {
      await initialized(peer!);
      const abort = new AbortController();
      const call = peer!.client.callTool('slow', {}, { signal: abort.signal });
      await peer!.server.next(isRequest('tools/call'), DEADLINE);
      abort.abort();
      await call;
      return (await sync(peer!.server)).map(method);
    },
  },
  [F.cancelUnknownRequest]: {
    transport: 'wt',
    async run(peer) {
      await initialized(peer!);
      return (await sync(peer!.server)).map(method);
    },
  },
  [F.noRetryAfterRejection]: {
    transport: 'memory',
    async run(peer) {
      await initialized(peer!);
      const prompt = { type: 'number', message: 'How many?' };
      const run = peer!.client.interact('count', undefined, scriptedAnswerer([-1, 3]));
      const sessionId = await startSession(peer!, prompt);
      await answerNext(peer!.server, 'interaction.respond', { accepted: false, validation: { valid: false, error: 'too small' } });
      await peer!.server.send({ jsonrpc: '2.0', id: 'reprompt', method: 'interaction.prompt', params: { sessionId, prompt: { ...prompt, error: 'too small' } } });
      const next = await Promise.race([
        peer!.server.next(isRequest('interaction.respond'), DEADLINE).then(({ message }) => message as Message),
        run.then(() => undefined),
      ]);
      if (next) {
        await peer!.server.send({ jsonrpc: '2.0', id: next.id, result: { accepted: true, validation: { valid: true } } });
        await peer!.server.send({ jsonrpc: '2.0', id: 'done', method: 'interaction.complete', params: { sessionId, result: { success: true, data: { n: 3 } } } });
      }
      return { status: (await run).status, respondedAgain: next !== undefined };
    },
  },
  [F.initializeWithoutClientInfo]: {
    transport: 'memory',
    async run(peer) {
      const init = peer!.client.initialize();
      const request = await peer!.answerInitialize();
      await init;
      return request.params.clientInfo;
    },
  },
  [F.jsonrpcVersionWrong]: {
    transport: 'memory',
    async run(peer) {
      await initialized(peer!);
      const listing = peer!.client.listTools();
      const request = await answerNext(peer!.server, 'tools/list', { tools: [] });
      await listing;
      return request.jsonrpc;
    },
  },
  [F.continueUnacknowledged]: {
    transport: 'memory',
    async run(peer) {
      await initialized(peer!);
      const run = peer!.client.interact('wizard', undefined, scriptedAnswerer([]));
      const sessionId = await startSession(peer!);
      await peer!.server.send({ jsonrpc: '2.0', id: 'c1', method: 'interaction.continue', params: { sessionId, progress: { current: 1, total: 2, message: 'working' } } });
      // What the client sent before its answer to a request it always answers: the continue's answer, or nothing.
      const before = await sync(peer!.server);
      await peer!.server.send({ jsonrpc: '2.0', id: 'done', method: 'interaction.complete', params: { sessionId, result: { success: true, data: {} } } });
      await run;
      return before.filter((m) => m.id === 'c1').map((m) => m.result ?? m.error);
    },
  },
  [F.respondWithoutValue]: {
    transport: 'memory',
    async run(peer) {
      await initialized(peer!);
      const run = peer!.client.interact('wizard', undefined, scriptedAnswerer(['yes']));
      const sessionId = await startSession(peer!, { type: 'text', message: 'Say yes' });
      const respond = await answerNext(peer!.server, 'interaction.respond', { accepted: true, validation: { valid: true } });
      await peer!.server.send({ jsonrpc: '2.0', id: 'done', method: 'interaction.complete', params: { sessionId, result: { success: true, data: {} } } });
      await run;
      return respond.params.response;
    },
  },
  [F.initializeCancelled]: {
    transport: 'memory',
    async run(peer) {
      await initialized(peer!);
      return (await sync(peer!.server)).map(method);
    },
  },
};

/** Every probe, by fault name. */
const PROBES: Record<string, Probe> = { ...ORIGINAL_PROBES, ...CORE_PROBES, ...FLOW_PROBES, ...WEBTRANSPORT_PROBES };

describe('the mock client fault catalog', () => {
  it('names each fault once, with a client-side requirement from the catalog', () => {
    const catalog = mockClientFaultCatalog();
    expect(new Set(catalog.map((f) => f.name)).size).toBe(catalog.length);
    const requirements = new Map(readCatalog().requirements.map((r) => [r.id, r]));
    for (const fault of catalog) {
      const requirement = requirements.get(fault.requirement);
      expect(requirement, `${fault.name} -> ${fault.requirement}`).toBeDefined();
      expect(requirement!.role, `${fault.name} -> ${fault.requirement}`).not.toBe('server');
      expect(fault.name).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
    }
  });

  it('refuses an unknown fault name with a typed error naming close ones', () => {
    expect(() => new ClientFaults(['ping-unanswerd'])).toThrow(UnknownClientFaultError);
    expect(() => new ClientFaults(['ping-unanswerd'])).toThrow(/ping-unanswered/);
  });

  it('has a probe for every fault', () => {
    expect(Object.keys(PROBES).sort()).toEqual(MOCK_CLIENT_FAULTS.map((f) => f.name).sort());
  });
});

/** What the correct client does in each probe, and what the fault changes, where a plain difference would say too little. */
const EXPECTED: Record<string, (correct: any, faulty: any) => boolean> = {
  [F.requestBeforeInitialize]: (c, f) => c === 'initialize' && f === 'tools/list',
  [F.initializeInCbor]: (c, f) => c === 'json' && f === 'not json',
  [F.noTransportExtension]: (c, f) => c?.type === 'mcp-flow' && f === undefined,
  [F.noInitializedNotification]: (c, f) => c === 'notifications/initialized' && f === 'tools/list',
  [F.encodingNotSwitched]: (c, f) => c[0] === 'cbor' && f[0] === 'json',
  [F.sendBeforeInitializeResult]: (c, f) => c.length === 0 && f.includes('MESSAGE_BEFORE_READY'),
  [F.pingUnanswered]: (c, f) => c.includes('result id "p1"') && f.length === 0,
  [F.samplingServedUndeclared]: (c, f) => c === 'error -32601 id "s1"' && f === 'result id "s1"',
  [F.interactionRequestServed]: (c, f) => c === 'error -32601 id "i1"' && f === 'result id "i1"',
  [F.unknownSessionPromptAcknowledged]: (c, f) => c.error?.code === -32001 && c.error?.data?.sessionId === 'nobody' && f.result?.acknowledged === true,
  [F.completeWithoutSuccess]: (c, f) => c.success === true && !('success' in f),
  [F.finalResultNotData]: (c, f) => c.finalResult?.answer === 42 && f.finalResult?.answer === undefined,
  [F.cursorModified]: (c, f) => c === 'page-2' && f !== 'page-2',
  [F.requestAfterInitializeError]: (c, f) => c.length === 0 && f.includes('tools/list'),
  [F.continueAfterVersionMismatch]: (c, f) => c === 'disconnected' && f === 'notifications/initialized',
  [F.noProtocolVersionHeader]: (c, f) => c.every((v: unknown) => typeof v === 'string') && f.every((v: unknown) => v === null),
  [F.requestIdReused]: (c, f) => c === 2 && f === 1,
  [F.notificationAnswered]: (c, f) => c.length === 0 && f.some((m: string) => m.startsWith('error -32601 id null')),
  [F.acceptInjectedStream]: (c, f) => c.stream === 'stopped' && c.reported && f.stream === 'read' && !f.reported,
  [F.injectionUnreported]: (c, f) => c.stream === 'stopped' && c.reported && f.stream === 'stopped' && !f.reported,
  [F.danglingStreamRefIgnored]: (c, f) => c.ok === false && c.before.includes('error -32001 id null') && f.ok === true && f.before.length === 0,
  [F.streamErrorAnswered]: (c, f) => c.length === 0 && f.some((m: string) => m.endsWith('id null')),
  [F.parseErrorUnanswered]: (c, f) => c.includes('error -32700 id null') && f.length === 0,
  [F.stopsAfterParseError]: (c, f) => c === 'result id "after"' && f === 'no answer',
  [F.requestsAfterShutdown]: (c, f) => c.length === 0 && f.includes('tools/list'),
  [F.oversizedFrame]: (c, f) => c === 'refused locally' && f === 'sent',
  [F.noCancelOnAbort]: (c, f) => c.includes('notifications/cancelled') && !f.includes('notifications/cancelled'),
  [F.cancelUnknownRequest]: (c, f) => !c.includes('$/cancel') && f.includes('$/cancel'),
  [F.noRetryAfterRejection]: (c, f) => c.status === 'completed' && c.respondedAgain && f.status === 'failed' && !f.respondedAgain,
  [F.initializeWithoutClientInfo]: (c, f) => typeof c?.name === 'string' && f === undefined,
  [F.jsonrpcVersionWrong]: (c, f) => c === '2.0' && f === '2',
  [F.continueUnacknowledged]: (c, f) => c.length === 1 && c[0].acknowledged === true && f.length === 0,
  [F.respondWithoutValue]: (c, f) => c.value === 'yes' && !('value' in f),
  [F.initializeCancelled]: (c, f) => !c.includes('notifications/cancelled') && f.includes('notifications/cancelled'),
};

// The probes of the faults added for issue 16 run in probes-core.test.ts and probes-webtransport.test.ts.
describeProbes('each fault changes what goes on the wire', Object.fromEntries(Object.entries(ORIGINAL_PROBES).map(([name, probe]) => [name, { ...probe, expected: EXPECTED[name] }])));
