// Suite `lifecycle`: the initialize exchange (result shape, capabilities as objects), what a server
// does before initialization (a request is not served, ping is answered outside WebTransport), a
// second initialize, ping, what a server sends before `notifications/initialized` and under each
// negotiated protocol version, and capability gating in both directions (002 §Initialization Phase,
// §Operation Phase, §Capability Negotiation; profile CORE-LIFE-*, CORE-CAP-*).
import { defineCase, type CaseContext, type ConformanceCase } from '../../../src/harness/index.js';
import { capabilityGate, declares, findMethod, isDefinedIn, PROTOCOL_VERSIONS, type ProtocolVersion } from '../../../src/protocol/methods.js';
import { isRecord } from '../../../src/wire/index.js';
import { errorOf, initializeParams, isResponseTo, notification, openSession, request, setupRequest, type Message } from '../../support/session.js';
import {
  answerDeclared,
  callToolsAtOnce,
  caseDeadline,
  isTargetInitiated,
  toolsOf,
  watchTarget,
} from '../../support/negotiation.js';
import { orderedChannel, settleReactions, takeQueued } from '../../support/quiet.js';
import { ANSWERING_CLIENT_CAPABILITIES, SWEEP_IDLE_MS } from '../../support/core.js';

const SUITE = 'lifecycle';

/** How long "nothing happens" is watched (before --timeout-scale). */
const QUIET_MS = 500;
/** How long a tool sweep may take to be answered (before --timeout-scale); calls that keep quiet are left sooner (SWEEP_IDLE_MS). */
const SWEEP_MS = 6_000;
/** Limit of a case that sweeps the tools (before --timeout-scale). */
const SWEEP_CASE_MS = 18_000;

/** An empty result: `{}`, or only the `_meta` member every MCP result may carry. */
const isEmptyResult = (value: unknown): boolean => isRecord(value) && Object.keys(value).every((key) => key === '_meta');

/** The capabilities the documents define (official ServerCapabilities of every version); the set is "not a closed set". */
const KNOWN_SERVER_CAPABILITIES = new Set(['completions', 'experimental', 'logging', 'prompts', 'resources', 'tasks', 'tools']);

/** The target's tools with their input schemas, when it declared `tools` (else none: CORE-CAP-1). */
async function listedTools(ctx: CaseContext, capabilities: unknown): Promise<{ name: string; inputSchema: unknown }[]> {
  if (!declares(capabilities, 'tools')) return [];
  return toolsOf(await setupRequest(ctx, 'tools/list', {}));
}

// ---- initialize -----------------------------------------------------------------------------------

const initializeResultShape = defineCase({
  id: 'lifecycle/initialize-result-shape',
  suite: SUITE,
  title: 'the initialize result carries protocolVersion, capabilities and serverInfo {name, version}; each capability is an object',
  requirements: ['CORE-LIFE-3', 'CORE-CAP-6'],
  async run(ctx) {
    const answer = await ctx.request('CORE-LIFE-3', 'initialize', initializeParams(ctx), { what: 'initialize' });
    if (!answer) return;
    const result = answer.result;
    if (!ctx.check('CORE-LIFE-3', isRecord(result), { message: 'initialize is answered with a result object', actual: answer })) return;
    const r = result as Message;
    ctx.check('CORE-LIFE-3', typeof r.protocolVersion === 'string', { message: 'result.protocolVersion is a string', actual: r.protocolVersion });
    ctx.check('CORE-LIFE-3', isRecord(r.capabilities), { message: 'result.capabilities is an object', actual: r.capabilities });
    const info = r.serverInfo;
    ctx.check('CORE-LIFE-3', isRecord(info) && typeof info.name === 'string' && typeof info.version === 'string', {
      message: 'result.serverInfo has string name and version',
      expected: { name: 'string', version: 'string' },
      actual: info,
    });
    if (!isRecord(r.capabilities)) return;
    for (const [name, value] of Object.entries(r.capabilities)) {
      if (name === 'interactive') {
        // C-14 accepts a top-level `interactive: true` as well as 000's capability object.
        ctx.info('CORE-CAP-6', 'capabilities.interactive is MCP Flow\'s advertisement (C-14), which may be true or an object', value);
        continue;
      }
      if (!KNOWN_SERVER_CAPABILITIES.has(name)) {
        // "not a closed set" (official ServerCapabilities): an extension capability's shape is its own (rule 4).
        ctx.info('CORE-CAP-6', `capabilities.${name} is a capability the documents do not define; its value is not judged`, value);
        continue;
      }
      ctx.check('CORE-CAP-6', isRecord(value), { message: `capabilities.${name} is an object`, expected: {}, actual: value });
      if (!isRecord(value)) continue;
      for (const flag of ['listChanged', 'subscribe'] as const) {
        if (flag in value) ctx.check('CORE-CAP-6', typeof value[flag] === 'boolean', { message: `capabilities.${name}.${flag} is a boolean`, actual: value[flag] });
      }
    }
  },
});

// ---- before initialization ---------------------------------------------------------------------------

/** A request a server never serves before initialize: a listing of a feature it declared, else tools/list. */
function requestBeforeInitialize(ctx: CaseContext): { method: string; params: Message } {
  const capabilities = ctx.discovery.capabilities ?? {};
  for (const [capability, method] of [['tools', 'tools/list'], ['resources', 'resources/list'], ['prompts', 'prompts/list']] as const) {
    if (declares(capabilities, capability)) return { method, params: {} };
  }
  return { method: 'tools/list', params: {} };
}

interface Refusal {
  kind: 'answer' | 'null-error' | 'closed' | 'nothing';
  message?: Message;
  /** Over Streamable HTTP, the HTTP status the answer came with. */
  status?: number;
}

/**
 * Waits for what a server makes of a request it may refuse: an answer to `id`, an id-null error,
 * or the end. Silence is decided at the deadline (rule 6): the case says what it means.
 */
async function refusalOf(ctx: CaseContext, id: number): Promise<Refusal> {
  try {
    const received = await ctx.next(
      (r) => isResponseTo(r.message, id) || (isRecord(r.message) && r.message.id === null && 'error' in r.message),
      { timeoutMs: 5_000 },
    );
    const message = received.message as Message;
    const status = received.channel.kind === 'http' ? received.channel.status : undefined;
    return { kind: message.id === id ? 'answer' : 'null-error', message, ...(status !== undefined ? { status } : {}) };
  } catch (error) {
    if (ctx.signal.aborted) throw error;
    return { kind: ctx.connection.isClosed ? 'closed' : 'nothing' };
  }
}

/** A refusal the Streamable HTTP transport made itself: an HTTP error status (its body's id is not a JSON-RPC answer's). */
const httpRefusal = (seen: Refusal): boolean => seen.status !== undefined && seen.status >= 400;

/** CORE-RPC-16: a request left unanswered on a connection that stays open. */
function checkAnswered(ctx: CaseContext, seen: Refusal, what: string): boolean {
  return ctx.check('CORE-RPC-16', seen.kind !== 'nothing', {
    message: `${what} is answered (or the connection closes)`,
    expected: 'a response (result or error), or a closed connection',
    actual: seen.kind === 'nothing' ? 'no answer, and the connection stayed open' : seen.kind === 'closed' ? 'the connection closed' : 'an answer',
  });
}

const requestBeforeInitializeRefused = defineCase({
  id: 'lifecycle/request-before-initialize-refused',
  suite: SUITE,
  title: 'a request other than initialize or ping sent first is not served (an error, or the connection closes)',
  requirements: ['CORE-LIFE-5', 'CORE-RPC-16'],
  async run(ctx) {
    const { method, params } = requestBeforeInitialize(ctx);
    const id = ctx.nextId();
    ctx.note(`sending ${method} before initialize on purpose`);
    const http = ctx.connection.http;
    if (http) {
      // Streamable HTTP: no session exists yet, so the refusal may be an HTTP status without a JSON-RPC body.
      const response = await http.request(
        { headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' }, body: JSON.stringify(request(id, method, params)) },
        { signal: ctx.signal, timeoutMs: ctx.scaled(5_000) },
      );
      const served = response.messages.find((m) => isResponseTo(m, id) && isRecord(m) && 'result' in m);
      const refused = response.status >= 400 || response.messages.some((m) => isRecord(m) && 'error' in m);
      if (ctx.check('CORE-LIFE-5', served === undefined && refused, {
        message: `${method} before initialize is not served`,
        expected: 'an HTTP error status or a JSON-RPC error',
        actual: { status: response.status, messages: response.messages },
      })) {
        const error = response.messages.map((m) => errorOf(m as Message)).find((e) => e !== undefined);
        ctx.reading('CORE-LIFE-5', error?.code === -32600 ? 1 : 2, `HTTP status ${response.status}, ${error ? `error ${String(error.code)}` : 'no JSON-RPC error'}`, error);
      }
      return;
    }
    await ctx.connection.send(request(id, method, params));
    const seen = await refusalOf(ctx, id);
    if (seen.kind === 'closed') {
      ctx.check('CORE-LIFE-5', true, { message: `${method} before initialize: the connection was closed` });
      ctx.reading('CORE-LIFE-5', 3);
      return;
    }
    // A request is owed an answer (JSON-RPC §5), even one that comes too early.
    if (!checkAnswered(ctx, seen, `${method} before initialize`)) return;
    const error = errorOf(seen.message);
    if (!ctx.check('CORE-LIFE-5', error !== undefined, { message: `${method} before initialize is not served`, expected: { error: { code: -32600 } }, actual: seen.message })) return;
    ctx.reading('CORE-LIFE-5', error!.code === -32600 ? 1 : 2, `error ${String(error!.code)}${seen.kind === 'null-error' ? ', with id null (the transport refused it before any session)' : ''}`, seen.message);
  },
});

const pingBeforeInitialized = defineCase({
  id: 'lifecycle/ping-before-initialization',
  suite: SUITE,
  title: 'outside WebTransport, ping before initialization has completed is answered ({} recommended, an error or closing accepted), never left unanswered',
  requirements: ['CORE-LIFE-13', 'CORE-RPC-16'],
  transports: ['stdio', 'http'],
  async run(ctx) {
    if (ctx.connection.kind === 'http') {
      // Streamable HTTP routes a request to a session by Mcp-Session-Id, which only initialize
      // creates: "before initialization has completed" is between the result and notifications/initialized.
      await openSession(ctx, { initialized: false });
      ctx.note('ping after the initialize result, before notifications/initialized');
    } else {
      ctx.note('ping as the very first message');
    }
    const id = ctx.nextId();
    await ctx.connection.send(request(id, 'ping'));
    const seen = await refusalOf(ctx, id);
    if (seen.kind === 'closed') {
      ctx.reading('CORE-LIFE-13', 2, 'the connection closed');
      return;
    }
    if (!checkAnswered(ctx, seen, 'ping before initialization')) return;
    const answer = seen.message!;
    if (isRecord(answer.result)) {
      ctx.reading('CORE-LIFE-13', 1, isEmptyResult(answer.result) ? undefined : "a result with members, CORE-LIFE-12's to judge once initialized", answer.result);
    } else {
      ctx.reading('CORE-LIFE-13', 2, `refused with an error${seen.kind === 'null-error' ? ', id null' : ''}`, answer.error);
    }
  },
});

// ---- after initialization ---------------------------------------------------------------------------

const secondInitialize = defineCase({
  id: 'lifecycle/second-initialize-refused',
  suite: SUITE,
  title: 'a second initialize (asking for another version) is refused with an error or answered without resetting the session, and the session goes on',
  requirements: ['CORE-LIFE-8', 'CORE-RPC-5', 'CORE-RPC-16'],
  async run(ctx) {
    const first = await openSession(ctx);
    // Another known version than the one negotiated: a server that resets the session shows it by taking it.
    const other = PROTOCOL_VERSIONS.filter((v) => v !== first.protocolVersion).at(-1)!;
    const id = ctx.nextId();
    await ctx.connection.send(request(id, 'initialize', initializeParams(ctx, { protocolVersion: other })));
    const seen = await refusalOf(ctx, id);
    if (seen.kind === 'closed') {
      ctx.check('CORE-LIFE-8', false, { message: 'the second initialize is answered and the session goes on', expected: `a response with id ${id}`, actual: 'the connection closed' });
      return;
    }
    if (!checkAnswered(ctx, seen, `the second initialize (id ${id})`)) return;
    const answer = seen.message!;
    if (seen.kind === 'null-error') {
      if (httpRefusal(seen)) {
        // Streamable HTTP: the transport refused the POST itself; the MCP transport lets that error have no id.
        ctx.info('CORE-RPC-5', `the second initialize was refused by the HTTP transport (status ${seen.status}) with an error without its id`, answer);
      } else {
        ctx.check('CORE-RPC-5', false, { message: 'the error answering the second initialize carries the request\'s id', expected: id, actual: answer });
      }
    }
    const error = errorOf(answer);
    if (error) {
      ctx.reading('CORE-LIFE-8', 1, `error ${String(error.code)}`, error);
    } else if (isRecord(answer.result)) {
      const kept = answer.result.protocolVersion === first.protocolVersion;
      if (ctx.check('CORE-LIFE-8', kept, {
        message: `a second initialize answered with a result keeps the negotiated protocol version ${String(first.protocolVersion)} (asked: ${other})`,
        expected: first.protocolVersion,
        actual: answer.result.protocolVersion,
      })) {
        ctx.reading('CORE-LIFE-8', 2, undefined, answer.result);
      }
    }
    // The session goes on.
    const ping = await ctx.request('CORE-LIFE-8', 'ping', undefined, { what: 'ping after the second initialize' });
    if (ping) ctx.check('CORE-LIFE-8', isRecord(ping.result), { message: 'the session still answers ping after the second initialize', actual: ping });
  },
});

const pingAnswered = defineCase({
  id: 'lifecycle/ping-answered-empty',
  suite: SUITE,
  title: 'ping is answered with an empty result {} (the reserved _meta noted)',
  requirements: ['CORE-LIFE-12'],
  async run(ctx) {
    await openSession(ctx);
    for (const params of [undefined, {}]) {
      const answer = await ctx.request('CORE-LIFE-12', 'ping', params, { what: params ? 'ping with params {}' : 'ping without params' });
      if (!answer) continue;
      if (!ctx.check('CORE-LIFE-12', isEmptyResult(answer.result), { message: `ping ${params ? 'with' : 'without'} params is answered with an empty result`, expected: { result: {} }, actual: answer })) continue;
      if (Object.keys(answer.result as object).length > 0) ctx.info('CORE-LIFE-12', 'the empty ping result carries the reserved _meta member', answer.result);
    }
  },
});

// ---- what the server sends -----------------------------------------------------------------------------

const quietBeforeInitialized = defineCase({
  id: 'lifecycle/quiet-before-initialized',
  suite: SUITE,
  title: 'before notifications/initialized a server sends no request but ping and no notification but logging',
  requirements: ['CORE-LIFE-7'],
  timeLimitMs: SWEEP_CASE_MS,
  async run(ctx) {
    const until = caseDeadline(ctx);
    const result = await openSession(ctx, { initialized: false, capabilities: { ...ANSWERING_CLIENT_CAPABILITIES } });
    // Give the server every reason to ask something (its tools), before initialized on purpose.
    ctx.note('calling the tools before notifications/initialized, so that the server has reasons to send requests');
    const calls = await callToolsAtOnce(ctx, await listedTools(ctx, result.capabilities));
    // A ping behind the calls: once it is answered the server has taken every call up (silence by
    // ordering on stdio and WebTransport). Over Streamable HTTP each call is a POST of its own, which
    // the ping's POST may overtake: a short quiet time follows there.
    const barrier = `barrier-${ctx.nextId()}`;
    await ctx.connection.send(request(barrier, 'ping'));
    const upToBarrier = await watchTarget(ctx, { ms: SWEEP_MS, until, awaiting: [barrier], onTarget: async () => undefined });
    const afterBarrier = orderedChannel(ctx)
      ? { initiated: [], answered: new Set<string | number>() }
      : await watchTarget(ctx, { ms: QUIET_MS, onTarget: async () => undefined, silence: 'requests before notifications/initialized' });
    const early = { initiated: [...upToBarrier.initiated, ...afterBarrier.initiated], answered: new Set([...upToBarrier.answered, ...afterBarrier.answered]) };
    const forbidden = early.initiated.filter((m) => ('id' in m ? m.method !== 'ping' : m.method !== 'notifications/message'));
    ctx.check('CORE-LIFE-7', forbidden.length === 0, {
      message: `nothing but ping requests and logging notifications arrive before notifications/initialized (${calls.length} tools called)`,
      expected: 'ping or notifications/message only',
      actual: forbidden.map((m) => m.method),
    });
    // Answer what arrived early, then let the session go on.
    for (const message of early.initiated) await answerDeclared(ctx, message, ANSWERING_CLIENT_CAPABILITIES);
    await ctx.connection.send(notification('notifications/initialized'));
    await watchTarget(ctx, { ms: SWEEP_MS, until, awaiting: calls.filter((id) => !early.answered.has(id)), onTarget: (m) => answerDeclared(ctx, m, ANSWERING_CLIENT_CAPABILITIES), idleMs: SWEEP_IDLE_MS });
  },
});

/** Checks every method the target sent is defined in `version` (CORE-LIFE-11). */
function checkMethodsDefined(ctx: CaseContext, version: ProtocolVersion, methods: readonly string[]): void {
  const outside = [...new Set(methods)].filter((method) => findMethod(method) !== undefined && !isDefinedIn(method, version));
  ctx.check('CORE-LIFE-11', outside.length === 0, {
    message: `every method the server sent is defined in the negotiated version ${version} (sent: ${[...new Set(methods)].join(', ') || 'none'})`,
    expected: `methods of ${version}`,
    actual: outside,
  });
}

function methodsWithinVersion(version: ProtocolVersion): ConformanceCase {
  return defineCase({
    id: `lifecycle/methods-within-version-${version}`,
    suite: SUITE,
    title: `after negotiating ${version} (or the version offered instead) the server sends no method that version does not define`,
    requirements: ['CORE-LIFE-11'],
    timeLimitMs: SWEEP_CASE_MS,
    async run(ctx) {
      const until = caseDeadline(ctx);
      const result = await openSession(ctx, { protocolVersion: version, capabilities: { ...ANSWERING_CLIENT_CAPABILITIES } });
      const negotiated = result.protocolVersion;
      if (typeof negotiated !== 'string' || !(PROTOCOL_VERSIONS as readonly string[]).includes(negotiated)) {
        ctx.info('CORE-LIFE-11', `the server answered ${version} with ${JSON.stringify(negotiated)}, a version this suite does not know; methods are checked against ${version}`);
      } else if (negotiated !== version) {
        ctx.info('CORE-LIFE-11', `the server offered ${negotiated} instead of ${version}; methods are checked against ${negotiated}`);
      }
      const effective = (PROTOCOL_VERSIONS as readonly string[]).includes(negotiated as string) ? (negotiated as ProtocolVersion) : version;
      const calls = await callToolsAtOnce(ctx, await listedTools(ctx, result.capabilities));
      const seen = await watchTarget(ctx, { ms: SWEEP_MS, until, awaiting: calls, onTarget: (m) => answerDeclared(ctx, m, ANSWERING_CLIENT_CAPABILITIES), idleMs: SWEEP_IDLE_MS });
      checkMethodsDefined(ctx, effective, seen.initiated.map((m) => m.method));
    },
  });
}

const clientFeaturesOnlyWhenDeclared = defineCase({
  id: 'lifecycle/client-features-only-when-declared',
  suite: SUITE,
  title: 'a server sends sampling/createMessage, roots/list or elicitation/create only to a client that declared the feature',
  requirements: ['CORE-CAP-2'],
  timeLimitMs: SWEEP_CASE_MS,
  async run(ctx) {
    const until = caseDeadline(ctx);
    const result = await openSession(ctx, { capabilities: {} });
    const calls = await callToolsAtOnce(ctx, await listedTools(ctx, result.capabilities));
    const seen = await watchTarget(ctx, { ms: SWEEP_MS, until, awaiting: calls, onTarget: (m) => answerDeclared(ctx, m, {}), idleMs: SWEEP_IDLE_MS });
    const gated = seen.initiated.filter((m) => {
      const definition = findMethod(m.method);
      return definition?.system === 'core' && capabilityGate(m.method)?.declaredBy === 'client';
    });
    ctx.check('CORE-CAP-2', gated.length === 0, {
      message: `no client feature is used when the client declared none (${calls.length} tools called)`,
      expected: 'no sampling/createMessage, roots/list or elicitation/create',
      actual: gated.map((m) => m.method),
    });
  },
});

/** Minimal, schema-valid params for a request of a server feature. */
const FEATURE_PROBES: readonly { method: string; params: Message }[] = [
  { method: 'tools/list', params: {} },
  { method: 'resources/list', params: {} },
  { method: 'resources/templates/list', params: {} },
  { method: 'prompts/list', params: {} },
  { method: 'logging/setLevel', params: { level: 'info' } },
  { method: 'completion/complete', params: { ref: { type: 'ref/prompt', name: 'conformance' }, argument: { name: 'x', value: '' } } },
];

const undeclaredFeatureRefused = defineCase({
  id: 'lifecycle/undeclared-feature-refused',
  suite: SUITE,
  title: 'a request for a server feature that was not declared is answered with an error; resources/subscribe without resources.subscribe too',
  requirements: ['CORE-CAP-3', 'CORE-CAP-4'],
  async run(ctx) {
    const result = await openSession(ctx);
    const version = (PROTOCOL_VERSIONS as readonly string[]).includes(result.protocolVersion as string) ? (result.protocolVersion as ProtocolVersion) : undefined;
    const capabilities = result.capabilities;
    let probed = 0;
    for (const probe of FEATURE_PROBES) {
      const gate = capabilityGate(probe.method, version);
      if (!gate || declares(capabilities, gate.path)) continue;
      probed++;
      const answer = await ctx.request('CORE-CAP-3', probe.method, probe.params, { what: `${probe.method} (${gate.path} not declared)` });
      if (!answer) continue;
      const error = errorOf(answer);
      if (ctx.check('CORE-CAP-3', error !== undefined, { message: `${probe.method} is refused: the server did not declare ${gate.path}`, expected: { error: { code: -32601 } }, actual: answer })) {
        ctx.reading('CORE-CAP-3', error!.code === -32601 ? 1 : 2, `error ${String(error!.code)}`, error);
      }
    }
    if (probed === 0) ctx.info('CORE-CAP-3', 'the server declared every server feature this case probes; nothing undeclared to ask for', capabilities);
    if (declares(capabilities, 'resources.subscribe')) {
      ctx.info('CORE-CAP-4', 'the server declared resources.subscribe: true; subscribing is allowed');
      return;
    }
    // A resource that exists, when the server lists any, so that only the missing capability can refuse it.
    const listed = declares(capabilities, 'resources') ? await setupRequest(ctx, 'resources/list', {}) : undefined;
    const resources = isRecord(listed?.result) && Array.isArray(listed.result.resources) ? listed.result.resources : [];
    const first = resources.find((r): r is Message & { uri: string } => isRecord(r) && typeof r.uri === 'string');
    const uri = first?.uri ?? 'file:///mcp-flow-conformance/never-subscribed';
    const answer = await ctx.request('CORE-CAP-4', 'resources/subscribe', { uri }, { what: `resources/subscribe for ${uri}` });
    if (answer) ctx.check('CORE-CAP-4', errorOf(answer) !== undefined, { message: 'resources/subscribe is refused: resources.subscribe was not declared', expected: 'an error', actual: answer });
  },
});

const listChangedOnlyWhenDeclared = defineCase({
  id: 'lifecycle/list-changed-only-when-declared',
  suite: SUITE,
  title: 'notifications/*/list_changed arrive only for a feature declared with listChanged: true',
  requirements: ['CORE-CAP-5'],
  async run(ctx) {
    const result = await openSession(ctx);
    // The moments a server is most tempted: right after notifications/initialized, and around lists.
    for (const method of ['tools/list', 'resources/list', 'prompts/list']) {
      const feature = method.split('/')[0]!;
      if (declares(result.capabilities, feature)) await setupRequest(ctx, method, {});
    }
    // Silence by ordering: a ping after the lists is answered after what the server sent around them;
    // over Streamable HTTP notifications may come on the GET stream at any time: a window from the target's speed.
    await settleReactions(ctx, QUIET_MS, 'list_changed notifications');
    const notes = (await takeQueued(ctx, () => true)).map((r) => r.message).filter(isTargetInitiated);
    for (const feature of ['tools', 'resources', 'prompts'] as const) {
      const method = `notifications/${feature}/list_changed`;
      const declared = declares(result.capabilities, `${feature}.listChanged`);
      const sent = notes.filter((m) => m.method === method).length;
      ctx.check('CORE-CAP-5', declared || sent === 0, {
        message: `${method} is sent only when ${feature}.listChanged is true (declared: ${declared})`,
        expected: declared ? 'any number' : 0,
        actual: sent,
      });
    }
  },
});

export const cases: readonly ConformanceCase[] = [
  initializeResultShape,
  requestBeforeInitializeRefused,
  pingBeforeInitialized,
  secondInitialize,
  pingAnswered,
  quietBeforeInitialized,
  ...PROTOCOL_VERSIONS.map(methodsWithinVersion),
  clientFeaturesOnlyWhenDeclared,
  undeclaredFeatureRefused,
  listChangedOnlyWhenDeclared,
];
