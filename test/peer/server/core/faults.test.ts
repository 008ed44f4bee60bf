// Every core fault changes what a client can observe: for each one, a probe whose observation
// differs between the correct server and the server with only that fault switched on.
import { describe, expect, it } from 'vitest';
import { barrier, startRaw, type RawSession } from './harness.js';
import { CORE_FAULT, CORE_FAULTS, activeFaults, faultCatalog } from '../../../../src/peer/server/faults.js';
import { ActiveFaults, DuplicateFaultError, UnknownFaultError, type ServerExtension } from '../../../../src/peer/server/extension.js';
import { createMockServer, type MockServerOptions } from '../../../../src/peer/server/server.js';
import { requirements } from '../../../../src/protocol/requirements.js';

type Msg = Record<string, unknown>;
type Probe = { options?: MockServerOptions; run(session: RawSession, gate: Gate): Promise<unknown> };

/** A test tool that blocks until released or cancelled, so cancellation probes need no timing. */
class Gate {
  entered!: Promise<void>;
  finished!: Promise<void>;
  #enter!: () => void;
  #finish!: () => void;
  #release!: () => void;
  #released!: Promise<void>;
  constructor() {
    this.entered = new Promise((resolve) => (this.#enter = resolve));
    this.finished = new Promise((resolve) => (this.#finish = resolve));
    this.#released = new Promise((resolve) => (this.#release = resolve));
  }
  release(): void {
    this.#release();
  }
  extension(): ServerExtension {
    return {
      name: 'gate',
      tools: [
        {
          name: 'gate',
          description: 'waits until released or cancelled',
          inputSchema: { type: 'object' },
          call: async (_args, ctx) => {
            this.#enter();
            try {
              await new Promise<void>((resolve, reject) => {
                void this.#released.then(() => resolve());
                ctx.cancelled.addEventListener('abort', () => reject(ctx.cancelled.reason), { once: true });
              });
              return { content: [{ type: 'text', text: 'released' }] };
            } finally {
              this.#finish();
            }
          },
        },
      ],
    };
  }
}

const kind = (m: Msg | undefined) => (m === undefined ? 'none' : 'result' in m ? 'result' : 'error' in m ? 'error' : 'other');
const code = (m: Msg) => (m['error'] as Msg | undefined)?.['code'];

/** Calls the gate tool, cancels it with `notification`, releases it, and reports what answered the call. */
async function cancelGate(session: RawSession, gate: Gate, notification: string): Promise<string> {
  await session.initialize();
  await session.client.send({ jsonrpc: '2.0', id: 'g', method: 'tools/call', params: { name: 'gate', arguments: {} } });
  await gate.entered;
  await session.notify(notification, { requestId: 'g' });
  await barrier(session);
  gate.release();
  await gate.finished;
  await barrier(session);
  return kind(session.pending().find((m) => m['id'] === 'g'));
}

async function countAfter(session: RawSession, action: () => Promise<unknown>, match: (m: Msg) => boolean): Promise<number> {
  await action();
  await barrier(session);
  return session.pending().filter(match).length;
}

/** Calls the sample tool `times` times, answering each sampling/createMessage, and returns those requests. */
async function samplingRequests(session: RawSession, times = 1): Promise<Msg[]> {
  await session.initialize('2025-11-25', { sampling: {} });
  const asked: Msg[] = [];
  for (let i = 0; i < times; i++) {
    await session.client.send({ jsonrpc: '2.0', id: `s${i}`, method: 'tools/call', params: { name: 'sample', arguments: { prompt: 'x' } } });
    const request = await session.next((m) => m['method'] === 'sampling/createMessage');
    asked.push(request);
    await session.client.send({ jsonrpc: '2.0', id: request['id'], result: { role: 'assistant', content: { type: 'text', text: 'ok' }, model: 'm' } });
    await session.next((m) => m['id'] === `s${i}`);
  }
  return asked;
}

/** A request whose jsonrpc member is wrong, sent after initialize; the answer to it. */
async function invalidRequest(session: RawSession): Promise<Msg> {
  await session.initialize();
  await session.client.send({ jsonrpc: '1.0', id: 'v', method: 'ping' });
  return session.next((m) => m['id'] === 'v');
}

/** The result of one request after initialize. */
async function resultOf(session: RawSession, method: string, params?: unknown): Promise<Msg> {
  await session.initialize();
  return (await session.request(method, params))['result'] as Msg;
}

const F = CORE_FAULT;
const clientInfo = { name: 't', version: '1' };
const slowArgs = (steps: number) => ({ name: 'slow', arguments: { steps, stepMs: 0 }, _meta: { progressToken: 'p' } });

const PROBES: Record<string, Probe> = {
  [F.acceptRequestBeforeInitialize]: { run: async (s) => kind(await s.request('tools/list')) },
  [F.pingBeforeInitializeUnanswered]: {
    run: async (s) => {
      await s.client.send({ jsonrpc: '2.0', id: 'p', method: 'ping' });
      await s.initialize();
      await barrier(s);
      return kind(s.pending().find((m) => m['id'] === 'p'));
    },
  },
  [F.secondInitializeAccepted]: {
    run: async (s) => {
      await s.initialize();
      return kind(await s.request('initialize', { protocolVersion: '2025-03-26', capabilities: {}, clientInfo }));
    },
  },
  [F.initializeMissingServerInfo]: { run: async (s) => 'serverInfo' in ((await s.initialize())['result'] as Msg) },
  [F.wrongProtocolVersion]: { run: async (s) => ((await s.initialize('2025-03-26'))['result'] as Msg)['protocolVersion'] },
  [F.unsupportedVersionEchoed]: { run: async (s) => ((await s.initialize('1999-01-01'))['result'] as Msg)['protocolVersion'] },
  [F.pingNonEmptyResult]: { run: async (s) => (await s.initialize(), (await s.request('ping'))['result']) },
  [F.parseErrorUnanswered]: {
    run: async (s) => {
      await s.client.sendRaw(new TextEncoder().encode('not json\n'));
      await barrier(s);
      return s.pending().filter((m) => code(m) === -32700).length;
    },
  },
  [F.parseErrorWrongCode]: {
    run: async (s) => {
      await s.client.sendRaw(new TextEncoder().encode('not json\n'));
      await barrier(s);
      return s.pending().map(code);
    },
  },
  [F.invalidRequestWrongCode]: { run: async (s) => code(await invalidRequest(s)) },
  [F.invalidRequestParseError]: { run: async (s) => code(await invalidRequest(s)) },
  [F.wrongErrorCodeMethodNotFound]: { run: async (s) => (await s.initialize(), code(await s.request('no/such'))) },
  [F.wrongErrorCodeInvalidParams]: { run: async (s) => (await s.initialize(), code(await s.request('tools/call', {}))) },
  [F.stringIdEchoedAsNumber]: {
    run: async (s) => {
      await s.initialize();
      await s.client.send({ jsonrpc: '2.0', id: '7', method: 'ping' });
      return typeof (await s.next((m) => m['id'] === '7' || m['id'] === 7))['id'];
    },
  },
  [F.duplicateResponse]: {
    run: async (s) => {
      await s.initialize();
      return countAfter(s, () => s.client.send({ jsonrpc: '2.0', id: 'd', method: 'ping' }), (m) => m['id'] === 'd');
    },
  },
  [F.errorWithoutMessage]: { run: async (s) => (await s.initialize(), 'message' in ((await s.request('no/such'))['error'] as Msg)) },
  [F.answerNotification]: {
    run: async (s) => (await s.initialize(), countAfter(s, () => s.notify('notifications/unheard-of'), () => true)),
  },
  [F.internalErrorCodeWrong]: { run: async (s) => (await s.initialize(), code(await s.request('resources/read', { uri: 'mock://broken' }))) },
  [F.batchRejected]: {
    run: async (s) => {
      await s.initialize('2025-03-26');
      await s.client.send([{ jsonrpc: '2.0', id: 'b', method: 'ping' }]);
      return Array.isArray(await s.next());
    },
  },
  [F.undeclaredCapabilityServed]: { options: { core: { prompts: false } }, run: async (s) => (await s.initialize(), kind(await s.request('prompts/list'))) },
  [F.subscribeWithoutCapability]: {
    options: { core: { subscribe: false } },
    run: async (s) => (await s.initialize(), kind(await s.request('resources/subscribe', { uri: 'mock://counter' }))),
  },
  [F.clientCapabilityIgnored]: {
    run: async (s) => {
      await s.initialize('2025-11-25', {});
      await s.client.send({ jsonrpc: '2.0', id: 'c', method: 'tools/call', params: { name: 'sample', arguments: { prompt: 'x' } } });
      const first = await s.next((m) => m['id'] === 'c' || m['method'] === 'sampling/createMessage');
      if (first['method'] !== undefined) await s.client.send({ jsonrpc: '2.0', id: first['id'], error: { code: -32601, message: 'no' } });
      return first['method'] ?? 'answered';
    },
  },
  [F.methodOutsideVersion]: {
    run: async (s) => {
      await s.initialize('2025-03-26', { elicitation: {} });
      await s.client.send({ jsonrpc: '2.0', id: 'e', method: 'tools/call', params: { name: 'elicit', arguments: { message: 'x' } } });
      const first = await s.next((m) => m['id'] === 'e' || m['method'] === 'elicitation/create');
      if (first['method'] !== undefined) await s.client.send({ jsonrpc: '2.0', id: first['id'], result: { action: 'decline' } });
      return first['method'] ?? 'answered';
    },
  },
  [F.serverRequestBeforeInitialized]: {
    run: async (s) => {
      await s.request('initialize', { protocolVersion: '2025-11-25', capabilities: { sampling: {} }, clientInfo });
      await s.client.send({ jsonrpc: '2.0', id: 'c', method: 'tools/call', params: { name: 'sample', arguments: { prompt: 'x' } } });
      await barrier(s);
      const early = s.pending().filter((m) => m['method'] === 'sampling/createMessage').length;
      await s.notify('notifications/initialized');
      const asked = await s.next((m) => m['method'] === 'sampling/createMessage');
      await s.client.send({ jsonrpc: '2.0', id: asked['id'], result: { role: 'assistant', content: { type: 'text', text: 'ok' }, model: 'm' } });
      await s.next((m) => m['id'] === 'c');
      return early;
    },
  },
  [F.ignoreCancel]: { run: (s, gate) => cancelGate(s, gate, 'notifications/cancelled') },
  [F.respondAfterCancelled]: { run: (s, gate) => cancelGate(s, gate, 'notifications/cancelled') },
  [F.answerCancelledNotification]: {
    run: async (s) => (await s.initialize(), countAfter(s, () => s.notify('notifications/cancelled', { requestId: 'ghost' }), () => true)),
  },
  [F.dollarCancelAnsweredWithResult]: { run: (s, gate) => cancelGate(s, gate, '$/cancel') },
  [F.deafToCancel]: { run: (s, gate) => cancelGate(s, gate, '$/cancel') },
  [F.answerUnknownDollarCancel]: {
    run: async (s) => (await s.initialize(), countAfter(s, () => s.notify('$/cancel', { requestId: 'ghost' }), () => true)),
  },
  [F.progressAfterResponse]: {
    run: async (s) => (await s.initialize(), countAfter(s, () => s.request('tools/call', slowArgs(2)), (m) => m['method'] === 'notifications/progress')),
  },
  [F.progressNotIncreasing]: {
    run: async (s) => {
      await s.initialize();
      await s.request('tools/call', slowArgs(3));
      return s.pending().map((m) => (m['params'] as Msg)['progress']);
    },
  },
  [F.progressUnknownToken]: {
    run: async (s) => {
      await s.initialize();
      await s.request('tools/call', slowArgs(1));
      return s.pending().map((m) => (m['params'] as Msg)['progressToken']);
    },
  },
  [F.loggingLevelIgnored]: {
    run: async (s) => {
      await s.initialize();
      await s.request('logging/setLevel', { level: 'error' });
      return countAfter(s, () => s.request('tools/call', { name: 'log', arguments: { level: 'info', message: 'x' } }), (m) => m['method'] === 'notifications/message');
    },
  },
  [F.setLevelInvalidAccepted]: { run: async (s) => (await s.initialize(), kind(await s.request('logging/setLevel', { level: 'loud' }))) },
  [F.logWithoutCapability]: {
    options: { logging: false },
    run: async (s) => {
      await s.initialize();
      return countAfter(s, () => s.request('tools/call', { name: 'log', arguments: { level: 'error', message: 'x' } }), (m) => m['method'] === 'notifications/message');
    },
  },
  [F.unknownToolResult]: { run: async (s) => (await s.initialize(), kind(await s.request('tools/call', { name: 'nope', arguments: {} }))) },
  [F.invalidArgumentsExecuted]: { run: async (s) => (await s.initialize(), kind(await s.request('tools/call', { name: 'add', arguments: { a: 'x', b: 1 } }))) },
  [F.toolFailureAsProtocolError]: { run: async (s) => (await s.initialize(), kind(await s.request('tools/call', { name: 'fail', arguments: {} }))) },
  [F.structuredContentMismatch]: {
    run: async (s) => (await s.initialize(), ((await s.request('tools/call', { name: 'add', arguments: { a: 1, b: 2 } }))['result'] as Msg)['structuredContent']),
  },
  [F.resourceNotFoundResult]: { run: async (s) => (await s.initialize(), kind(await s.request('resources/read', { uri: 'mock://missing' }))) },
  [F.pathTraversalServed]: { run: async (s) => (await s.initialize(), kind(await s.request('resources/read', { uri: 'mock://docs/../../etc/passwd' }))) },
  [F.updatedWithoutSubscription]: {
    run: async (s) => {
      await s.initialize();
      return countAfter(s, () => s.request('tools/call', { name: 'touch', arguments: { uri: 'mock://counter' } }), (m) => m['method'] === 'notifications/resources/updated');
    },
  },
  [F.cursorLoops]: {
    options: { core: { pageSize: 20 } },
    run: async (s) => {
      await s.initialize();
      const first = (await s.request('resources/list'))['result'] as Msg;
      const second = (await s.request('resources/list', { cursor: first['nextCursor'] }))['result'] as Msg;
      return second['nextCursor'] ?? 'end';
    },
  },
  [F.invalidCursorAccepted]: { run: async (s) => (await s.initialize(), kind(await s.request('resources/list', { cursor: 'bogus' }))) },
  [F.promptMissingArgumentAccepted]: {
    run: async (s) => (await s.initialize(), kind(await s.request('prompts/get', { name: 'greeting', arguments: {} }))),
  },
  [F.responseJsonrpcVersionWrong]: { run: async (s) => (await s.initialize(), (await s.request('ping'))['jsonrpc']) },
  [F.serverRequestPositionalParams]: { run: async (s) => Array.isArray((await samplingRequests(s))[0]!['params']) },
  [F.serverRequestFractionalId]: {
    run: async (s) => {
      await s.initialize('2025-11-25', { sampling: {} });
      await s.client.send({ jsonrpc: '2.0', id: 'c', method: 'tools/call', params: { name: 'sample', arguments: { prompt: 'x' } } });
      return (await s.next((m) => m['method'] === 'sampling/createMessage'))['id'];
    },
  },
  [F.serverRequestIdReused]: { run: async (s) => new Set((await samplingRequests(s, 2)).map((m) => m['id'])).size },
  [F.integerIdEchoedAsString]: {
    run: async (s) => {
      // Every id but the probe's is a string, so that the other answers still find their requests.
      await s.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo }, 'i');
      await s.notify('notifications/initialized');
      await s.client.send({ jsonrpc: '2.0', id: 7, method: 'ping' });
      return typeof (await s.next((m) => m['id'] === 7 || m['id'] === '7'))['id'];
    },
  },
  [F.capabilityAsBoolean]: { run: async (s) => (((await s.initialize())['result'] as Msg)['capabilities'] as Msg)['logging'] },
  [F.toolInputSchemaWithoutType]: {
    run: async (s) => ((await resultOf(s, 'tools/list'))['tools'] as Msg[]).map((tool) => (tool['inputSchema'] as Msg)['type']),
  },
  [F.toolContentWithoutType]: {
    run: async (s) => ((await resultOf(s, 'tools/call', { name: 'add', arguments: { a: 1, b: 2 } }))['content'] as Msg[]).map((item) => item['type']),
  },
  [F.setLevelNoticeRefused]: { run: async (s) => (await s.initialize(), kind(await s.request('logging/setLevel', { level: 'notice' }))) },
  [F.logLevelUppercase]: {
    run: async (s) => {
      await s.initialize();
      await s.request('tools/call', { name: 'log', arguments: { level: 'error', message: 'x' } });
      await barrier(s);
      return s.pending().filter((m) => m['method'] === 'notifications/message').map((m) => (m['params'] as Msg)['level']);
    },
  },
  [F.cancelNamesForeignRequest]: {
    run: async (s) => {
      await s.initialize('2025-11-25', { sampling: {} });
      await s.client.send({ jsonrpc: '2.0', id: 'c', method: 'tools/call', params: { name: 'sample', arguments: { prompt: 'x' } } });
      const asked = await s.next((m) => m['method'] === 'sampling/createMessage');
      await s.notify('notifications/cancelled', { requestId: 'c' });
      const cancelled = await s.next((m) => m['method'] === 'notifications/cancelled');
      return (cancelled['params'] as Msg)['requestId'] === asked['id'];
    },
  },
  [F.resourceWithoutName]: { run: async (s) => ((await resultOf(s, 'resources/list'))['resources'] as Msg[]).every((r) => typeof r['name'] === 'string') },
  [F.resourceContentWithoutBody]: {
    run: async (s) => Object.keys(((await resultOf(s, 'resources/read', { uri: 'mock://docs/readme.md' }))['contents'] as Msg[])[0]!).sort(),
  },
  [F.templateWithoutName]: {
    run: async (s) => ((await resultOf(s, 'resources/templates/list'))['resourceTemplates'] as Msg[]).map((t) => t['name']),
  },
  [F.unsubscribeRefused]: { run: async (s) => (await s.initialize(), kind(await s.request('resources/unsubscribe', { uri: 'mock://counter' }))) },
  [F.promptRequiredAsString]: {
    run: async (s) => ((await resultOf(s, 'prompts/list'))['prompts'] as Msg[]).flatMap((p) => (p['arguments'] as Msg[]).map((a) => typeof a['required'])),
  },
  [F.promptMessageRoleSystem]: {
    run: async (s) => ((await resultOf(s, 'prompts/get', { name: 'greeting', arguments: { name: 'Ada' } }))['messages'] as Msg[]).map((m) => m['role']),
  },
  [F.completionResultNotObject]: {
    run: async (s) =>
      Array.isArray(await resultOf(s, 'completion/complete', { ref: { type: 'ref/prompt', name: 'greeting' }, argument: { name: 'name', value: 'A' } })),
  },
  [F.serverRequestNullProgressToken]: { run: async (s) => '_meta' in ((await samplingRequests(s))[0]!['params'] as Msg) },
  [F.listChangedUndeclared]: {
    run: async (s) => {
      await s.initialize();
      await barrier(s);
      return s.pending().filter((m) => typeof m['method'] === 'string' && (m['method'] as string).endsWith('/list_changed')).length;
    },
  },
  [F.serverToClientRequestServed]: { run: async (s) => (await s.initialize(), kind(await s.request('interaction.prompt', { sessionId: 'x' }))) },
  [F.nextCursorNumber]: { options: { core: { pageSize: 2 } }, run: async (s) => typeof (await resultOf(s, 'resources/list'))['nextCursor'] },
  [F.errorStackLeaked]: { run: async (s) => (await s.initialize(), String(((await s.request('no/such-method'))['error'] as Msg)['message']).includes('\n')) },
  [F.unknownParamsMemberRefused]: { run: async (s) => (await s.initialize(), [kind(await s.request('ping', { 'x-extra': 1 })), kind(await s.request('tools/list', { 'x-extra': 1 }))]) },
  [F.duplicateToolName]: { run: async (s) => ((await resultOf(s, 'tools/list'))['tools'] as Msg[]).length },
  [F.olderVersionOffered]: {
    run: async (s) => ((await s.request('initialize', { protocolVersion: '1999-01-01', capabilities: {}, clientInfo }))['result'] as Msg)['protocolVersion'],
  },
};

/** Faults whose probes need a WebTransport session (test/peer/server/core/webtransport.test.ts). */
export const WEBTRANSPORT_FAULTS = [
  F.wtTransportMissing,
  F.wtCancelKeepsStream,
  F.wtStreamErrorWithFin,
  F.wtNoStreamErrorNotification,
  F.wtCancelledAnswered,
  F.wtTransportTypeNotEchoed,
  F.wtUnboundedMessageSize,
  F.wtUnknownEncodingRefused,
];

async function observe(name: string | undefined, probe: Probe): Promise<unknown> {
  const gate = new Gate();
  const options = { ...probe.options, extensions: [gate.extension()], ...(name ? { faults: [name] } : {}) };
  const session = startRaw(options);
  try {
    return await probe.run(session, gate);
  } finally {
    gate.release();
    await session.close();
  }
}

describe('core fault catalog', () => {
  it('names every fault once, in kebab-case, citing a requirement the catalog has', () => {
    const catalog = requirements();
    const names = CORE_FAULTS.map((f) => f.name);
    expect(new Set(names).size).toBe(names.length);
    for (const fault of CORE_FAULTS) {
      expect(fault.name).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
      expect(() => catalog.get(fault.requirement), `${fault.name} cites ${fault.requirement}`).not.toThrow();
      expect(catalog.get(fault.requirement).role, `${fault.name} breaks a requirement on servers`).not.toBe('client');
      expect(fault.description.length).toBeGreaterThan(10);
    }
  });

  it('has an in-memory probe or a WebTransport probe for every fault', () => {
    const covered = new Set([...Object.keys(PROBES), ...WEBTRANSPORT_FAULTS]);
    expect(CORE_FAULTS.map((f) => f.name).filter((n) => !covered.has(n))).toEqual([]);
    expect([...covered].filter((n) => !CORE_FAULTS.some((f) => f.name === n))).toEqual([]);
  });

  it('rejects unknown fault names with suggestions, and duplicate definitions', () => {
    expect(() => createMockServer({ faults: ['ignore-cancle'] })).toThrow(UnknownFaultError);
    try {
      activeFaults(['ignore-cancle']);
    } catch (error) {
      expect((error as UnknownFaultError).suggestions[0]).toBe('ignore-cancel');
      expect((error as UnknownFaultError).message).toContain('ignore-cancel');
    }
    expect(() => new ActiveFaults([], [...CORE_FAULTS, CORE_FAULTS[0]!])).toThrow(DuplicateFaultError);
  });

  it("aggregates extensions' faults into the catalog", () => {
    const extension: ServerExtension = { name: 'x', faults: [{ name: 'x-breaks', requirement: 'FLOW-SM-4', description: 'breaks the state machine' }] };
    expect(faultCatalog([extension]).map((f) => f.name)).toContain('x-breaks');
    const server = createMockServer({ extensions: [extension], faults: ['x-breaks'] });
    expect(server.faults.has('x-breaks')).toBe(true);
    expect(server.faults.list()).toEqual(['x-breaks']);
  });
});

describe('each core fault changes observable behaviour (in-memory)', () => {
  it.each(Object.entries(PROBES))('%s', async (name, probe) => {
    const correct = await observe(undefined, probe);
    const faulty = await observe(name, probe);
    expect(faulty).not.toEqual(correct);
  });
});
