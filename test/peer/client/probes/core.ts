// Probes of the mock client's MCP core faults (issue 16): message shapes, ids, answers, declared
// capabilities, progress, cancellation and tool results, each over an in-memory pair.
import { MOCK_CLIENT_FAULT as F, runScenario } from '../../../../src/peer/client/index.js';
import { startMockServer } from '../../../../src/peer/server/index.js';
import { DEADLINE, isRequest, type Message, type ScriptedPeer } from '../support.js';
import { answerNext, initialized, method, sync, type Probe } from './support.js';

/** Sends `request` to the client and returns its answer (the first response naming the id, as a number or a string). */
async function answerTo(peer: ScriptedPeer, request: Message): Promise<Message> {
  await peer.server.send({ jsonrpc: '2.0', ...request });
  const id = request.id;
  const { message } = await peer.server.next((r) => {
    const m = r.message as Message;
    return !('method' in m) && (m.id === id || m.id === String(id));
  }, DEADLINE);
  return message as Message;
}

/** The kinds of message the client sends after a ping carrying progress token "t": up to its answer, then up to a sync. */
async function afterTokenPing(peer: ScriptedPeer): Promise<string[]> {
  await initialized(peer);
  await peer.server.send({ jsonrpc: '2.0', id: 'p1', method: 'ping', params: { _meta: { progressToken: 't' } } });
  const seen: Message[] = [];
  for (;;) {
    const { message } = await peer.server.next(undefined, DEADLINE);
    seen.push(message as Message);
    if ((message as Message).id === 'p1' && !('method' in (message as Message))) break;
  }
  seen.push(...(await sync(peer.server)));
  return seen.filter((m) => m.method !== 'notifications/initialized').map((m) => (m.method === 'notifications/progress' ? `progress ${m.params?.progress}` : method(m)));
}

/** The client's sent messages up to a sync, once initialized. */
async function afterInitialized(peer: ScriptedPeer): Promise<string[]> {
  await initialized(peer);
  return (await sync(peer.server)).map(method);
}

/** runScenario's tools/call steps against the mock server over HTTP, calling a tool it does not have (`count` 2). */
async function callsOfFailingScenario(faults: string[]): Promise<string[]> {
  const server = await startMockServer({ transport: 'http', fastworkflow: false });
  try {
    const outcome = await runScenario({ url: server.url, scenario: 'tools-call', context: { tool: 'no-such-tool', count: 2 } }, { faults, requestTimeoutMs: DEADLINE.timeoutMs });
    return outcome.steps.filter((step) => step.name.startsWith('tools/call')).map((step) => step.name);
  } finally {
    await server.close();
  }
}

export const CORE_PROBES: Record<string, Probe> = {
  [F.positionalParams]: {
    transport: 'memory',
    async run(peer) {
      await initialized(peer!);
      const call = peer!.client.callTool('echo', { text: 'x' });
      const request = await answerNext(peer!.server, 'tools/call', { content: [] });
      await call;
      return Array.isArray(request.params) ? 'array' : typeof request.params;
    },
    expected: (c, f) => c === 'object' && f === 'array',
  },
  [F.requestIdNull]: {
    transport: 'memory',
    run: afterInitialized,
    expected: (c, f) => !c.includes('ping') && f.includes('ping'),
  },
  [F.responseIdAsString]: {
    transport: 'memory',
    async run(peer) {
      await initialized(peer!);
      return typeof (await answerTo(peer!, { id: 7, method: 'ping' })).id;
    },
    expected: (c, f) => c === 'number' && f === 'string',
  },
  [F.errorCodeNotInteger]: {
    transport: 'memory',
    async run(peer) {
      await initialized(peer!);
      return typeof (await answerTo(peer!, { id: 'e1', method: 'conformance/unknown' })).error?.code;
    },
    expected: (c, f) => c === 'number' && f === 'string',
  },
  [F.pingResultNotObject]: {
    transport: 'memory',
    async run(peer) {
      await initialized(peer!);
      return (await answerTo(peer!, { id: 'p1', method: 'ping' })).result;
    },
    expected: (c, f) => JSON.stringify(c) === '{}' && Array.isArray(f),
  },
  [F.requestAnsweredTwice]: {
    transport: 'memory',
    async run(peer) {
      await initialized(peer!);
      await peer!.server.send({ jsonrpc: '2.0', id: 'p1', method: 'ping' });
      return (await sync(peer!.server)).filter((m) => m.id === 'p1').length;
    },
    expected: (c, f) => c === 1 && f === 2,
  },
  [F.unknownMethodInvalidParams]: {
    transport: 'memory',
    async run(peer) {
      await initialized(peer!);
      return (await answerTo(peer!, { id: 'm1', method: 'conformance/unknown' })).error?.code;
    },
    expected: (c, f) => c === -32601 && f === -32602,
  },
  [F.stopsAfterError]: {
    transport: 'http',
    run: (_peer, faults) => callsOfFailingScenario(faults),
    expected: (c, f) => c.length === 2 && f.length === 1,
  },
  [F.undeclaredFeatureCalled]: {
    transport: 'memory',
    async run(peer) {
      await initialized(peer!);
      // The scripted server declared tools only: listing prompts sends nothing, unless the fault asks anyway.
      const listing = peer!.client.listPrompts().catch(() => []);
      const sent = await sync(peer!.server);
      for (const m of sent.filter((m) => m.method === 'prompts/list')) await peer!.server.send({ jsonrpc: '2.0', id: m.id, result: { prompts: [] } });
      await listing;
      return sent.map(method);
    },
    expected: (c, f) => !c.includes('prompts/list') && f.includes('prompts/list'),
  },
  [F.capabilityNotObject]: {
    transport: 'memory',
    async run(peer) {
      const init = peer!.client.initialize();
      const request = await peer!.answerInitialize();
      await init;
      return request.params.capabilities.roots ?? null;
    },
    expected: (c, f) => c === null && f === true,
  },
  [F.rootsNotFileUri]: {
    transport: 'memory',
    client: { capabilities: { roots: {} } },
    async run(peer) {
      await initialized(peer!);
      return (await answerTo(peer!, { id: 'r1', method: 'roots/list' })).result;
    },
    expected: (c, f) => c.roots.length === 0 && f.roots[0].uri.startsWith('https://'),
  },
  [F.elicitationWithoutAction]: {
    transport: 'memory',
    client: { capabilities: { elicitation: {} } },
    async run(peer) {
      await initialized(peer!);
      return (await answerTo(peer!, { id: 'e1', method: 'elicitation/create', params: { message: '?', requestedSchema: { type: 'object', properties: {} } } })).result;
    },
    expected: (c, f) => c.action === 'decline' && f.action === undefined,
  },
  [F.samplingWithoutModel]: {
    transport: 'memory',
    client: { capabilities: { sampling: {} } },
    async run(peer) {
      await initialized(peer!);
      return (await answerTo(peer!, { id: 's1', method: 'sampling/createMessage', params: { messages: [], maxTokens: 5 } })).result;
    },
    expected: (c, f) => typeof c.model === 'string' && f.model === undefined,
  },
  [F.methodOutsideVersion]: {
    transport: 'memory',
    async run(peer) {
      const init = peer!.client.initialize();
      const request = await peer!.answerInitialize();
      await init;
      return { version: request.params.protocolVersion, sent: (await sync(peer!.server)).map(method) };
    },
    expected: (c, f) => !c.sent.includes('tasks/list') && f.version === '2025-06-18' && f.sent.includes('tasks/list'),
  },
  [F.progressTokenNotInteger]: {
    transport: 'memory',
    async run(peer) {
      await initialized(peer!);
      const listing = peer!.client.listTools();
      const request = await answerNext(peer!.server, 'tools/list', { tools: [] });
      await listing;
      return request.params?._meta?.progressToken ?? null;
    },
    expected: (c, f) => c === null && f === 0.5,
  },
  [F.progressUnsolicited]: {
    transport: 'memory',
    run: afterInitialized,
    expected: (c, f) => !c.includes('notifications/progress') && f.includes('notifications/progress'),
  },
  [F.progressDecreasing]: {
    transport: 'memory',
    run: (peer) => afterTokenPing(peer!),
    expected: (c, f) => c.join() === 'result id "p1"' && f.join() === 'progress 2,progress 1,result id "p1"',
  },
  [F.progressAfterResponse]: {
    transport: 'memory',
    run: (peer) => afterTokenPing(peer!),
    expected: (c, f) => c.join() === 'result id "p1"' && f.join() === 'result id "p1",progress 1',
  },
  [F.cancelledUnknownRequest]: {
    transport: 'memory',
    run: afterInitialized,
    expected: (c, f) => !c.includes('notifications/cancelled') && f.includes('notifications/cancelled'),
  },
  [F.unknownCancelAnswered]: {
    transport: 'memory',
    async run(peer) {
      await initialized(peer!);
      await peer!.server.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'never-sent', reason: 'probe' } });
      return (await sync(peer!.server)).map(method);
    },
    expected: (c, f) => c.length === 0 && f.includes('error -32602 id null'),
  },
  [F.isErrorSucceeds]: {
    transport: 'memory',
    async run(peer) {
      await initialized(peer!);
      const call = peer!.client.callTool('echo', { text: 'x' });
      await peer!.server.next(isRequest('tools/call'), DEADLINE).then(({ message }) =>
        peer!.server.send({ jsonrpc: '2.0', id: (message as Message).id, result: { content: [{ type: 'text', text: 'failed' }], isError: true } }),
      );
      return (await call).ok;
    },
    expected: (c, f) => c === false && f === true,
  },
};
