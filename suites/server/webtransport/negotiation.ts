// Suite `negotiation`: protocol-version negotiation (002 §Version Negotiation, the HTTP
// MCP-Protocol-Version header), MCP Flow capability discovery and message directions (000
// §Capability Discovery, §Message Flow, C-14), and the WebTransport binding's initialize parameters
// and encoding negotiation (001 §2.1, §3; profile CORE-VER-*, FLOW-CAP-*, WT-INIT-*, WT-ENC-*).
import { defineCase, TargetPreconditionError, type Applicability, type CaseContext, type ConformanceCase, type Discovery } from '../../../src/harness/index.js';
import { FLOW_ERROR } from '../../../src/protocol/error-codes.js';
import { findInteractiveAdvertisements } from '../../../src/protocol/flow-capability.js';
import { PROTOCOL_VERSIONS, type ProtocolVersion } from '../../../src/protocol/methods.js';
import { cborCodec, codecFor, encodeFrame, isRecord, type EncodingName } from '../../../src/wire/index.js';
import { DEFAULT_BINDING_TRANSPORT, errorOf, initializeParams, isResponseTo, notification, openSession, request, SETUP_ANSWER_MS, type Message } from '../../support/session.js';
import { quietWindow, settleReactions, takeQueued } from '../../support/quiet.js';
import type { ReceivedMessage } from '../../../src/transport/connection.js';
import { awaitWireAnswer, cborShape, collectFor, requestOnWire, type WireAnswer } from '../../support/negotiation.js';

const SUITE = 'negotiation';

/** A version no MCP revision has (older than every one of them). */
const UNKNOWN_VERSION = '2000-01-01';
/** How long "nothing happens" is watched (before --timeout-scale). */
const QUIET_MS = 500;

const isKnownVersion = (value: unknown): value is ProtocolVersion => typeof value === 'string' && (PROTOCOL_VERSIONS as readonly string[]).includes(value);

// ---- protocol versions ------------------------------------------------------------------------------

/**
 * Over Streamable HTTP: whether the server accepts `version` in the MCP-Protocol-Version header of a
 * request in this session (true), refuses it with 400 (false), or the header tells nothing because
 * the server does not refuse a made-up version either (undefined).
 */
async function headerAccepts(ctx: CaseContext, version: string): Promise<boolean | undefined> {
  const http = ctx.connection.http;
  if (!http || http.sessionId === undefined) return undefined;
  const probe = async (value: string) => {
    const body = JSON.stringify(request(ctx.nextId(), 'ping'));
    const response = await http.request(
      { headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': value }, body },
      { signal: ctx.signal, timeoutMs: ctx.scaled(SETUP_ANSWER_MS) },
    );
    return response.status !== 400;
  };
  if (await probe(UNKNOWN_VERSION)) return undefined;
  return probe(version);
}

function versionEchoed(version: ProtocolVersion): ConformanceCase {
  return defineCase({
    id: `negotiation/version-${version}`,
    suite: SUITE,
    title: `initialize asking for ${version} is answered with ${version} when the server supports it, else with another version it supports`,
    requirements: ['CORE-VER-2', 'CORE-VER-3', 'CORE-VER-6', 'WT-INIT-7'],
    async run(ctx) {
      const answer = await ctx.request('CORE-VER-3', 'initialize', initializeParams(ctx, { protocolVersion: version }), { what: `initialize for ${version}` });
      if (!answer) return;
      const result = answer.result;
      const binding = ctx.connection.kind === 'webtransport' ? ['WT-INIT-7'] : [];
      if (isRecord(answer.error)) {
        // C-34: refusing a version it does not support is an accepted reading of CORE-VER-3 (003 §5.1, MCP's lifecycle example).
        ctx.reading('CORE-VER-3', 2, `initialize for ${version} was refused: the server does not support ${version} (C-34)`, answer.error);
        for (const requirement of binding) ctx.info(requirement, `initialize for ${version} was refused with an error: the server does not support ${version} (C-34)`, answer.error);
        return;
      }
      for (const requirement of ['CORE-VER-3', ...binding]) {
        ctx.check(requirement, isRecord(result) && typeof result.protocolVersion === 'string', {
          message: `initialize for ${version} is answered with a result naming a protocolVersion (or refused with an error, C-34)`,
          actual: answer,
        });
      }
      if (!isRecord(result) || typeof result.protocolVersion !== 'string') return;
      const answered = result.protocolVersion;
      await ctx.connection.send(notification('notifications/initialized'));
      if (answered === version) {
        ctx.check('CORE-VER-2', true, { message: `${version} is echoed` });
        ctx.info('CORE-VER-6', `the server supports ${version}`);
        return;
      }
      ctx.info('CORE-VER-6', `the server answered ${version} with ${answered}: it does not support ${version}`, answered);
      ctx.reading('CORE-VER-3', 1, `${answered} offered for ${version}`);
      // A supported version is echoed; the HTTP header tells whether the server supports `version`.
      const accepted = await headerAccepts(ctx, version);
      if (accepted === undefined) {
        ctx.check('CORE-VER-2', true, { message: `${version} was not echoed; nothing on the wire says the server supports it` });
        return;
      }
      ctx.check('CORE-VER-2', !accepted, {
        message: `the server accepts MCP-Protocol-Version ${version} (so it supports it) yet answered initialize for ${version} with ${answered}`,
        expected: version,
        actual: answered,
      });
    },
  });
}

const unknownVersionOffered = defineCase({
  id: 'negotiation/unknown-version-answered',
  suite: SUITE,
  title: 'initialize asking for an unknown version is answered with a version the server supports, its latest (or refused with an error, C-34)',
  requirements: ['CORE-VER-3', 'CORE-VER-4', 'CORE-VER-6', 'WT-INIT-7'],
  async run(ctx) {
    const answer = await ctx.request('CORE-VER-3', 'initialize', initializeParams(ctx, { protocolVersion: UNKNOWN_VERSION }), { what: `initialize for ${UNKNOWN_VERSION}` });
    if (!answer) return;
    if (isRecord(answer.error)) {
      // C-34: an error for a version the server does not support is an accepted reading (003 §5.1, MCP's lifecycle example).
      ctx.reading('CORE-VER-3', 2, `initialize for the unknown version ${UNKNOWN_VERSION} was refused (C-34)`, answer.error);
      if (ctx.connection.kind === 'webtransport') ctx.info('WT-INIT-7', `initialize for the unknown version ${UNKNOWN_VERSION} was refused with an error (C-34)`, answer.error);
      ctx.info('CORE-VER-4', 'no version was offered instead, so there is nothing to compare with the latest');
      return;
    }
    const result = answer.result;
    const offered = isRecord(result) ? result.protocolVersion : undefined;
    const good = typeof offered === 'string' && offered !== UNKNOWN_VERSION;
    const details = {
      message: `initialize for the unknown version ${UNKNOWN_VERSION} gets a result offering another version`,
      expected: { result: { protocolVersion: 'a version the server supports' } },
      actual: answer,
    };
    // Over WebTransport the binding's initialize follows the core version rules unchanged (WT-INIT-7).
    if (ctx.connection.kind === 'webtransport') ctx.check('WT-INIT-7', good, details);
    if (!ctx.check('CORE-VER-3', good, details)) return;
    const version = offered as string;
    ctx.reading('CORE-VER-3', 1, `${version} offered`);
    ctx.info('CORE-VER-6', `the server offers ${version} for a version it does not know`, version);
    await ctx.connection.send(notification('notifications/initialized'));
    if (ctx.connection.http) {
      const accepted = await headerAccepts(ctx, version);
      if (accepted !== undefined) {
        ctx.check('CORE-VER-3', accepted, { message: `the offered ${version} is one the server supports (its MCP-Protocol-Version header is accepted)`, actual: version });
      }
    }
    // The latest: not older than a version the server is known to support (the one discovery got echoed).
    const echoed = ctx.discovery.protocolVersion;
    if (isKnownVersion(echoed)) {
      ctx.check('CORE-VER-4', version >= echoed, {
        message: `the version offered instead (${version}) is not older than ${echoed}, which the server supports`,
        expected: `>= ${echoed}`,
        actual: version,
      });
    } else {
      ctx.info('CORE-VER-4', 'discovery learnt no supported version to compare with', echoed);
    }
  },
});

const versionHeaderRefused = defineCase({
  id: 'negotiation/protocol-version-header-refused',
  suite: SUITE,
  title: 'over Streamable HTTP a request whose MCP-Protocol-Version names an invalid or unsupported version gets HTTP 400',
  requirements: ['CORE-VER-8'],
  transports: ['http'],
  async run(ctx) {
    const init = await openSession(ctx);
    const http = ctx.connection.http;
    if (!http) throw new TargetPreconditionError('the HTTP connection has no raw request facet');
    // The header and its 400 exist from 2025-06-18 on; a session under an older version may ignore it.
    const negotiated = typeof init.protocolVersion === 'string' ? init.protocolVersion : '';
    if (negotiated < '2025-06-18') {
      ctx.info('CORE-VER-8', `the session negotiated ${negotiated || 'no version'}: the MCP-Protocol-Version header rules start with 2025-06-18`);
      return;
    }
    for (const value of [UNKNOWN_VERSION, 'not-a-version']) {
      const body = JSON.stringify(request(ctx.nextId(), 'ping'));
      const response = await http.request(
        { headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': value }, body },
        { signal: ctx.signal, timeoutMs: ctx.scaled(SETUP_ANSWER_MS) },
      );
      ctx.check('CORE-VER-8', response.status === 400, {
        message: `a POST with MCP-Protocol-Version ${JSON.stringify(value)} is answered with 400 Bad Request`,
        expected: 400,
        actual: { status: response.status, body: response.text.slice(0, 300) },
      });
    }
  },
});

// ---- MCP Flow capabilities ---------------------------------------------------------------------------

/** Tool names to probe with interaction.start: discovery's interactive tools first, then every listed tool. */
function probeTools(discovery: Discovery): string[] {
  return [...new Set([...(discovery.interactiveTools ?? []), ...(discovery.tools ?? [])])].slice(0, 32);
}

/** Starts interaction.start with each tool; returns the tools it accepted (each session cancelled at once). */
async function startedTools(ctx: CaseContext, requirement: string, tools: readonly string[]): Promise<{ started: string[]; answers: Message[] }> {
  const started: string[] = [];
  const answers: Message[] = [];
  for (const toolName of tools) {
    const answer = await ctx.request(requirement, 'interaction.start', { toolName }, { what: `interaction.start for ${toolName}` });
    if (!answer) break;
    answers.push(answer);
    if (!isRecord(answer.result)) continue;
    started.push(toolName);
    const sessionId = answer.result.sessionId;
    if (typeof sessionId === 'string') await ctx.request(requirement, 'interaction.cancel', { sessionId, reason: 'conformance probe' });
  }
  return { started, answers };
}

const interactiveAdvertised = defineCase({
  id: 'negotiation/interactive-advertised',
  suite: SUITE,
  title: 'a server that serves interaction.* advertises interactive support (initialize capabilities or the capabilities method)',
  requirements: ['FLOW-CAP-1'],
  timeLimitMs: 15_000,
  applies: (discovery) => ((discovery.tools?.length ?? 0) > 0 || (discovery.interactiveTools?.length ?? 0) > 0 ? true : 'the target lists no tools that interaction.start could start'),
  async run(ctx) {
    const result = await openSession(ctx);
    const capabilitiesAnswer = await ctx.request('FLOW-CAP-1', 'capabilities', {}, { what: 'capabilities' });
    const found = findInteractiveAdvertisements(result.capabilities, capabilitiesAnswer?.result);
    if (found.length > 0) {
      ctx.check('FLOW-CAP-1', true, { message: `interactive support is advertised (${found.map((f) => f.location).join(', ')})` });
      // Reading 3 is the capabilities method alone; alongside an initialize advertisement it is that one's reading.
      const inInitialize = found.filter((place) => place.location !== 'method');
      for (const place of inInitialize) ctx.reading('FLOW-CAP-1', place.location === 'experimental' ? 1 : 2, undefined, place.value);
      if (inInitialize.length === 0) ctx.reading('FLOW-CAP-1', 3, undefined, found[0]!.value);
      else if (found.some((place) => place.location === 'method')) ctx.info('FLOW-CAP-1', 'the capabilities method advertises it too');
      return;
    }
    // Advertised nowhere: the server must then not serve interaction.* at all.
    const { started } = await startedTools(ctx, 'FLOW-CAP-1', probeTools(ctx.discovery));
    ctx.check('FLOW-CAP-1', started.length === 0, {
      message: 'a server that advertises no interactive support serves no interaction.start',
      expected: 'interaction.start refused for every tool',
      actual: { started },
    });
  },
});

/** Applicability: the server shows MCP Flow support somewhere (advertisement, capabilities result, interactive tools). */
function showsFlowSupport(discovery: Discovery): Applicability {
  if (discovery.flowCapabilities !== undefined) return true;
  if (findInteractiveAdvertisements(discovery.capabilities).length > 0) return true;
  if ((discovery.interactiveTools?.length ?? 0) > 0) return true;
  return 'the target shows no MCP Flow support (no capabilities result, no interactive advertisement)';
}

const FEATURE_FLAGS = ['statefulSessions', 'progressTracking', 'validation', 'multiplePromptTypes', 'sessionPersistence'] as const;

const capabilitiesMethod = defineCase({
  id: 'negotiation/capabilities-result',
  suite: SUITE,
  title: 'the capabilities method is answered (recommended), with {interactive: boolean, version?: string ("0.1.0"), features?: {boolean flags}}',
  requirements: ['FLOW-CAP-2', 'FLOW-CAP-3', 'FLOW-CAP-4', 'FLOW-CAP-10'],
  applies: showsFlowSupport,
  async run(ctx) {
    await openSession(ctx);
    const answer = await ctx.request('FLOW-CAP-10', 'capabilities', undefined, { what: 'capabilities' });
    if (!answer) return;
    const result = answer.result;
    // Refusing the method is a missing recommended behaviour (FLOW-CAP-10); the shape of a result is FLOW-CAP-2's.
    if (!ctx.check('FLOW-CAP-10', !('error' in answer), { message: 'capabilities is answered with a result, not refused', actual: answer })) return;
    if (!ctx.check('FLOW-CAP-2', isRecord(result), { message: 'capabilities is answered with a result object', actual: answer })) return;
    const r = result as Message;
    ctx.check('FLOW-CAP-2', typeof r.interactive === 'boolean', { message: 'result.interactive is a boolean', actual: r.interactive });
    if ('version' in r) {
      ctx.check('FLOW-CAP-2', typeof r.version === 'string', { message: 'result.version is a string', actual: r.version });
      ctx.check('FLOW-CAP-3', r.version === '0.1.0', { message: 'result.version is "0.1.0"', expected: '0.1.0', actual: r.version });
    } else {
      ctx.info('FLOW-CAP-3', 'the capabilities result names no version');
    }
    if (!('features' in r)) {
      ctx.info('FLOW-CAP-4', 'the capabilities result has no features');
      return;
    }
    if (!ctx.check('FLOW-CAP-2', isRecord(r.features), { message: 'result.features is an object', actual: r.features })) return;
    const features = r.features as Message;
    const present = FEATURE_FLAGS.filter((flag) => flag in features);
    for (const flag of present) ctx.check('FLOW-CAP-4', typeof features[flag] === 'boolean', { message: `features.${flag} is a boolean`, actual: features[flag] });
    if (present.length === 0) ctx.info('FLOW-CAP-4', 'features names none of the 000 flags', features);
  },
});

/** Server-to-client MCP Flow requests, with params shaped as the server would send them. */
const SERVER_TO_CLIENT: readonly { method: string; params: Message }[] = [
  { method: 'interaction.prompt', params: { sessionId: 'conformance-wrong-direction', prompt: { type: 'text', message: 'wrong direction?' } } },
  { method: 'interaction.continue', params: { sessionId: 'conformance-wrong-direction', prompt: { type: 'text', message: 'wrong direction?' } } },
  { method: 'interaction.complete', params: { sessionId: 'conformance-wrong-direction', result: { content: [{ type: 'text', text: 'done' }] } } },
];

const wrongDirectionRefused = defineCase({
  id: 'negotiation/wrong-direction-refused',
  suite: SUITE,
  title: 'interaction.prompt, .continue and .complete sent by a client are answered -32601 Method not found (or -32001 for a session the server does not have)',
  requirements: ['FLOW-CAP-8', 'FLOW-CAP-9'],
  sendsInvalid: true,
  async run(ctx) {
    await openSession(ctx);
    for (const { method, params } of SERVER_TO_CLIENT) {
      const answer = await ctx.request('FLOW-CAP-9', method, params, { what: `${method} sent by the client` });
      if (!answer) continue;
      const error = errorOf(answer);
      ctx.check('FLOW-CAP-8', error !== undefined, { message: `${method} is a server-to-client request: a client's is not served`, actual: answer });
      const reading = error?.code === -32601 ? 1 : error?.code === FLOW_ERROR.SESSION_NOT_FOUND ? 2 : undefined;
      if (ctx.check('FLOW-CAP-9', reading !== undefined, { message: `${method} from the client is answered -32601 (or -32001: no such session on the server)`, expected: { error: { code: -32601 } }, actual: answer })) {
        ctx.reading('FLOW-CAP-9', reading!, method);
      }
    }
  },
});

/** Applicability: the target advertises no interactive mode (a plain MCP server, or Flow-aware with the mode off). */
function notInteractive(discovery: Discovery): Applicability {
  if (findInteractiveAdvertisements(discovery.capabilities, discovery.flowCapabilities).length > 0) return 'the target advertises interactive support';
  if ((discovery.interactiveTools?.length ?? 0) > 0) return 'the target serves interactive tools';
  return true;
}

const notInteractiveRefuses = defineCase({
  id: 'negotiation/not-interactive-refuses-interaction',
  suite: SUITE,
  title: 'a server without interactive mode answers interaction.* requests with an error',
  requirements: ['FLOW-CAP-7'],
  timeLimitMs: 15_000,
  applies: notInteractive,
  async run(ctx) {
    await openSession(ctx);
    const tools = probeTools(ctx.discovery);
    const { started, answers } = await startedTools(ctx, 'FLOW-CAP-7', tools.length > 0 ? tools : ['conformance-no-such-tool']);
    ctx.check('FLOW-CAP-7', started.length === 0, { message: 'interaction.start is refused for every tool', expected: 'an error for each', actual: { started } });
    const others = [
      { method: 'interaction.getState', params: { sessionId: 'conformance-no-session' } },
      { method: 'interaction.respond', params: { sessionId: 'conformance-no-session', response: { value: 'x' } } },
      { method: 'interaction.cancel', params: { sessionId: 'conformance-no-session' } },
    ];
    for (const { method, params } of others) {
      const answer = await ctx.request('FLOW-CAP-7', method, params, { what: method });
      if (!answer) continue;
      answers.push(answer);
      ctx.check('FLOW-CAP-7', errorOf(answer) !== undefined, { message: `${method} is answered with an error`, actual: answer });
    }
    const codes = [...new Set(answers.map((a) => errorOf(a)?.code).filter((c) => c !== undefined))];
    for (const code of codes) {
      if (code === -32007 || code === -32601) ctx.reading('FLOW-CAP-7', code === -32007 ? 1 : 2);
      else ctx.info('FLOW-CAP-7', `interaction.* refused with error ${String(code)}`);
    }
  },
});

// ---- WebTransport: initialize parameters --------------------------------------------------------------

const WT_ONLY = ['webtransport'] as const;

/** Sends initialize with `transport` (null: none) and reports its answer, which may not decode. */
async function wtInitialize(ctx: CaseContext, transport: Message | null): Promise<WireAnswer & { id: number }> {
  return requestOnWire(ctx, 'initialize', initializeParams(ctx, { transport }));
}

/** Checks the initialize answer arrived JSON-encoded (WT-ENC-2); returns the result when it did. */
function checkJsonAnswer(ctx: CaseContext, wire: WireAnswer, what: string): Message | undefined {
  const mismatch = wire.faults.find((f) => f.code === 'ENCODING_MISMATCH');
  if (!wire.answer) {
    if (mismatch) ctx.check('WT-ENC-2', false, { message: `the answer to ${what} is JSON-encoded`, expected: 'json', actual: mismatch.message });
    else throw new TargetPreconditionError(`${what} was not answered${wire.closed ? ' (the session closed)' : ''}`, { requirement: 'WT-ENC-2' });
    return undefined;
  }
  ctx.check('WT-ENC-2', wire.encoding === 'json', { message: `the answer to ${what} is JSON-encoded`, expected: 'json', actual: wire.encoding });
  return wire.answer;
}

const wtTransportResult = defineCase({
  id: 'negotiation/wt-initialize-result-transport',
  suite: SUITE,
  title: 'over WebTransport the initialize result is JSON, a full MCP initialize result, and carries transport {encoding, maxMessageSize, maxConcurrentStreams, datagramsSupported}',
  requirements: ['WT-ENC-2', 'WT-INIT-3', 'WT-INIT-4', 'WT-INIT-7', 'WT-ENC-9'],
  transports: WT_ONLY,
  async run(ctx) {
    const wire = await wtInitialize(ctx, { ...DEFAULT_BINDING_TRANSPORT });
    const answer = checkJsonAnswer(ctx, wire, 'initialize');
    if (!answer) return;
    const result = answer.result;
    if (!ctx.check('WT-INIT-7', isRecord(result), { message: 'initialize is answered with a result', actual: answer })) return;
    const r = result as Message;
    const info = r.serverInfo;
    ctx.check('WT-INIT-7', typeof r.protocolVersion === 'string' && isRecord(r.capabilities) && isRecord(info) && typeof info.name === 'string' && typeof info.version === 'string', {
      message: 'the result is an MCP initialize result (protocolVersion, capabilities, serverInfo {name, version})',
      actual: { protocolVersion: r.protocolVersion, capabilities: r.capabilities, serverInfo: info },
    });
    const t = r.transport;
    if (!ctx.check('WT-INIT-3', isRecord(t), { message: 'result.transport is an object', actual: t })) return;
    const transport = t as Message;
    ctx.check('WT-INIT-3', typeof transport.encoding === 'string', { message: 'transport.encoding is a string', actual: transport.encoding });
    // maxMessageSize is the profile's member (001 does not name it): WT-SEC-3 checks it where the limits are probed.
    ctx.check('WT-INIT-3', Number.isInteger(transport.maxConcurrentStreams) && (transport.maxConcurrentStreams as number) >= 0, {
      message: 'transport.maxConcurrentStreams is an integer >= 0',
      actual: transport.maxConcurrentStreams,
    });
    ctx.check('WT-INIT-3', typeof transport.datagramsSupported === 'boolean', { message: 'transport.datagramsSupported is a boolean', actual: transport.datagramsSupported });
    ctx.check('WT-INIT-4', transport.type === 'mcp-flow' && transport.version === '0.1', {
      message: 'transport echoes type "mcp-flow" and version "0.1"',
      expected: { type: 'mcp-flow', version: '0.1' },
      actual: { type: transport.type, version: transport.version },
    });
    checkSelectionOffered(ctx, transport.encoding, DEFAULT_BINDING_TRANSPORT.encodings);
  },
});

const wtUnknownTransportType = defineCase({
  id: 'negotiation/wt-unknown-transport-type-refused',
  suite: SUITE,
  title: 'an initialize whose transport.type is not "mcp-flow" is answered -32600 Invalid Request',
  requirements: ['WT-INIT-2'],
  transports: WT_ONLY,
  sendsInvalid: true,
  async run(ctx) {
    const wire = await wtInitialize(ctx, { type: 'not-mcp-flow', version: '0.1', encodings: ['json'] });
    if (!wire.answer) {
      ctx.check('WT-INIT-2', false, { message: 'initialize with transport.type "not-mcp-flow" is answered', expected: { error: { code: -32600 } }, actual: wire.closed ? 'session closed' : wire.faults });
      return;
    }
    ctx.check('WT-INIT-2', errorOf(wire.answer)?.code === -32600, {
      message: 'initialize with transport.type "not-mcp-flow" is answered -32600',
      expected: { error: { code: -32600 } },
      actual: wire.answer,
    });
  },
});

const wtOtherTransportVersion = defineCase({
  id: 'negotiation/wt-other-transport-version',
  suite: SUITE,
  title: 'an initialize with transport.version other than "0.1" is answered with version "0.1" or refused with -32600 (reported)',
  requirements: ['WT-INIT-5'],
  transports: WT_ONLY,
  async run(ctx) {
    const wire = await wtInitialize(ctx, { type: 'mcp-flow', version: '9.9', encodings: ['json'] });
    const answer = wire.answer;
    const version = answer && isRecord(answer.result) && isRecord(answer.result.transport) ? answer.result.transport.version : undefined;
    const code = errorOf(answer)?.code;
    const reading = version === '0.1' ? 1 : code === -32600 ? 2 : undefined;
    if (ctx.check('WT-INIT-5', reading !== undefined, { message: 'transport.version "9.9" is answered with version "0.1" or -32600', actual: answer ?? wire.faults })) {
      ctx.reading('WT-INIT-5', reading!, undefined, answer);
    }
  },
});

const wtTransportOmitted = defineCase({
  id: 'negotiation/wt-transport-omitted',
  suite: SUITE,
  title: 'an initialize without params.transport is served with the defaults (json) or refused with -32600 (reported)',
  requirements: ['WT-INIT-6'],
  transports: WT_ONLY,
  async run(ctx) {
    const wire = await wtInitialize(ctx, null);
    const answer = wire.answer;
    const result = answer && isRecord(answer.result) ? answer.result : undefined;
    const transport = result && isRecord(result.transport) ? result.transport : undefined;
    const served = result !== undefined && (transport === undefined || transport.encoding === 'json');
    const reading = served ? 1 : errorOf(answer)?.code === -32600 ? 2 : undefined;
    if (ctx.check('WT-INIT-6', reading !== undefined, { message: 'initialize without transport is served with json or refused with -32600', actual: answer ?? wire.faults })) {
      ctx.reading('WT-INIT-6', reading!, undefined, transport ?? answer);
    }
  },
});

// ---- WebTransport: encoding negotiation ----------------------------------------------------------------

/** The selected encoding of an initialize answer, or undefined. */
function selectedEncoding(answer: Message | undefined): unknown {
  return answer && isRecord(answer.result) && isRecord(answer.result.transport) ? answer.result.transport.encoding : undefined;
}

/** WT-ENC-9: the selection is one the client offered, or "json". */
function checkSelectionOffered(ctx: CaseContext, selected: unknown, offered: readonly string[] | undefined): void {
  const allowed = [...new Set(['json', ...(offered ?? [])])];
  ctx.check('WT-ENC-9', typeof selected === 'string' && allowed.includes(selected), {
    message: `transport.encoding is one the client offered, or "json" (offered: ${JSON.stringify(offered ?? null)})`,
    expected: allowed,
    actual: selected,
  });
}

/** Whether discovery's initialize (which offered cbor first) shows the server cannot speak CBOR. */
function discoveryLacksCbor(discovery: Discovery): boolean {
  return isRecord(discovery.transport) && discovery.transport.encoding === 'json';
}

/** One initialize offering `encodings` (undefined: the member omitted), checked with `check`. */
function encodingCase(options: {
  id: string;
  title: string;
  requirements: string[];
  encodings: string[] | undefined;
  check: (ctx: CaseContext, selected: unknown, answer: Message) => void;
}): ConformanceCase {
  return defineCase({
    id: options.id,
    suite: SUITE,
    title: options.title,
    requirements: options.requirements,
    transports: WT_ONLY,
    async run(ctx) {
      const transport: Message = { type: 'mcp-flow', version: '0.1', ...(options.encodings ? { encodings: options.encodings } : {}) };
      const wire = await wtInitialize(ctx, transport);
      if (!wire.answer) throw new TargetPreconditionError(`initialize offering ${JSON.stringify(options.encodings)} was not answered`, { requirement: options.requirements[0]!, actual: wire.faults });
      options.check(ctx, selectedEncoding(wire.answer), wire.answer);
    },
  });
}

const wtEncodingsOmitted = encodingCase({
  id: 'negotiation/wt-encodings-omitted-json',
  title: 'without transport.encodings the server selects "json"',
  requirements: ['WT-ENC-4'],
  encodings: undefined,
  check(ctx, selected, answer) {
    ctx.check('WT-ENC-4', selected === 'json', { message: 'no encodings offered: "json" is selected', expected: 'json', actual: selected ?? answer });
  },
});

const wtJsonFirst = encodingCase({
  id: 'negotiation/wt-encoding-preference-order',
  title: 'offered ["json", "cbor"], the server selects "json" (the first it supports: every server speaks json)',
  requirements: ['WT-ENC-6', 'WT-ENC-8'],
  encodings: ['json', 'cbor'],
  check(ctx, selected, answer) {
    ctx.check('WT-ENC-6', selected === 'json', { message: 'the first offered encoding the server supports ("json") is selected', expected: 'json', actual: selected ?? answer });
    ctx.check('WT-ENC-8', selected === 'json' || selected === 'cbor', { message: 'a server offered json can select json', actual: selected ?? answer });
  },
});

const wtJsonOnly = encodingCase({
  id: 'negotiation/wt-json-only-offered',
  title: 'offered only ["json"], the server serves initialize and selects "json" (every implementation speaks json)',
  requirements: ['WT-ENC-8', 'WT-ENC-9', 'WT-ENC-6'],
  encodings: ['json'],
  check(ctx, selected, answer) {
    ctx.check('WT-ENC-8', isRecord(answer.result), { message: 'an initialize offering only "json" is served', expected: 'a result', actual: answer });
    checkSelectionOffered(ctx, selected ?? answer, ['json']);
    ctx.check('WT-ENC-6', selected === 'json', { message: '"json", the only offered encoding, is selected', expected: 'json', actual: selected ?? answer });
  },
});

/** Encoding names no implementation knows. */
const MADE_UP_ENCODINGS = ['x-conformance-unknown', 'x-conformance-other'];

/** WT-ENC-7: with no offered encoding supported, "json" (recommended) or a refusal of initialize (reported); anything else warns. */
function checkNoneSupported(ctx: CaseContext, selected: unknown, answer: Message, what: string): void {
  const error = errorOf(answer);
  if (error !== undefined) {
    ctx.check('WT-ENC-7', true, { message: `${what}: initialize refused` });
    if (error.code === -32602) ctx.reading('WT-ENC-7', 2, undefined, error);
    else ctx.info('WT-ENC-7', `initialize refused with error ${String(error.code)} (-32602 is the code recommended for a refusal)`, error);
    return;
  }
  ctx.check('WT-ENC-7', selected === 'json', { message: `${what}: "json" is selected`, expected: 'json', actual: selected ?? answer });
  if (selected === 'json') ctx.reading('WT-ENC-7', 1);
}

const wtUnknownOnly = encodingCase({
  id: 'negotiation/wt-unknown-encodings-only',
  title: 'offered only encodings nobody knows, the server selects "json" (or refuses initialize, reported)',
  requirements: ['WT-ENC-7', 'WT-ENC-11', 'WT-ENC-9'],
  encodings: MADE_UP_ENCODINGS,
  check(ctx, selected, answer) {
    checkNoneSupported(ctx, selected, answer, 'no supported encoding offered');
    if (errorOf(answer) !== undefined) {
      ctx.info('WT-ENC-11', 'the server refused the offer rather than ignoring the unknown names');
      return;
    }
    ctx.check('WT-ENC-11', !MADE_UP_ENCODINGS.includes(selected as string), { message: 'unknown encoding names never win the selection', actual: selected });
    checkSelectionOffered(ctx, selected, MADE_UP_ENCODINGS);
  },
});

const wtUnknownIgnored = encodingCase({
  id: 'negotiation/wt-unknown-encoding-ignored',
  title: 'an unknown name first in transport.encodings is ignored: the server selects a known encoding from the rest',
  requirements: ['WT-ENC-11', 'WT-ENC-9', 'WT-ENC-6'],
  encodings: [MADE_UP_ENCODINGS[0]!, 'json'],
  check(ctx, selected, answer) {
    ctx.check('WT-ENC-11', selected === 'json', { message: 'offered [unknown, "json"]: the unknown name is skipped and "json" is selected', expected: 'json', actual: selected ?? answer });
    checkSelectionOffered(ctx, selected, [MADE_UP_ENCODINGS[0]!, 'json']);
    ctx.check('WT-ENC-6', selected === 'json', { message: '"json" is the first offered encoding the server supports', actual: selected });
  },
});

const wtCborOnly = encodingCase({
  id: 'negotiation/wt-cbor-only-offered',
  title: 'offered only ["cbor"], the server selects "cbor" when it speaks CBOR, else "json"',
  requirements: ['WT-ENC-7', 'WT-ENC-9'],
  encodings: ['cbor'],
  check(ctx, selected, answer) {
    if (errorOf(answer) === undefined) checkSelectionOffered(ctx, selected ?? answer, ['cbor']);
    if (discoveryLacksCbor(ctx.discovery)) {
      // Discovery offered ["cbor", "json"] and got json: this server does not speak CBOR.
      checkNoneSupported(ctx, selected, answer, 'a server that does not speak CBOR (discovery offered cbor first and got json), offered only cbor');
    } else if (errorOf(answer) !== undefined) {
      ctx.check('WT-ENC-7', false, { message: 'a server that speaks CBOR serves an initialize offering only cbor', expected: { result: { transport: { encoding: 'cbor' } } }, actual: answer });
    } else {
      ctx.check('WT-ENC-7', selected === 'cbor' || selected === 'json', { message: 'the selection is cbor (supported) or json', actual: selected });
      ctx.info('WT-ENC-7', `the server selected ${String(selected)} when only cbor was offered`);
    }
  },
});

/** Opens a WebTransport session offering ["cbor", "json"]; returns the encoding in force after it. */
async function openEncodedSession(ctx: CaseContext): Promise<EncodingName> {
  await openSession(ctx, { transport: { ...DEFAULT_BINDING_TRANSPORT } });
  const wt = ctx.connection.webtransport;
  if (!wt) throw new TargetPreconditionError('the connection has no WebTransport facet');
  return wt.encoding;
}

const wtSwitchAtBoundary = defineCase({
  id: 'negotiation/wt-negotiated-encoding-used',
  suite: SUITE,
  title: 'every message after the initialize result uses the negotiated encoding, from the very first one',
  requirements: ['WT-ENC-3'],
  transports: WT_ONLY,
  async run(ctx) {
    const encoding = await openEncodedSession(ctx);
    ctx.note(`negotiated ${encoding}`);
    for (let i = 0; i < 3; i++) {
      const wire = await requestOnWire(ctx, 'ping');
      const mismatch = wire.faults.find((f) => f.code === 'ENCODING_MISMATCH');
      ctx.check('WT-ENC-3', wire.answer !== undefined && wire.encoding === encoding && mismatch === undefined, {
        message: `answer ${i + 1} after the initialize result is ${encoding}-encoded`,
        expected: encoding,
        actual: wire.answer ? wire.encoding : (mismatch?.message ?? 'no answer'),
      });
    }
  },
});

/**
 * WT-ENC-5: a message in the other encoding is refused and not processed: -32003 with id null
 * (recommended), -32003 echoing the id it carries, or -32700 with id null (it is malformed in the
 * encoding in force).
 */
function checkMismatchRefused(ctx: CaseContext, answered: readonly ReceivedMessage[], id: number, what: string): void {
  const refusal = answered.find((r) => isRecord(r.message) && 'error' in r.message && (r.message.id === null || r.message.id === id))?.message as Message | undefined;
  const code = errorOf(refusal)?.code;
  const reading = code === -32003 ? (refusal!.id === null ? 1 : 2) : code === -32700 && refusal!.id === null ? 3 : undefined;
  ctx.check('WT-ENC-5', reading !== undefined, {
    message: `${what} is refused: -32003 (id null or its own id) or -32700 (id null)`,
    expected: [{ id: null, error: { code: -32003 } }, { id, error: { code: -32003 } }, { id: null, error: { code: -32700 } }],
    actual: answered.map((r) => r.message),
  });
  if (reading !== undefined) ctx.reading('WT-ENC-5', reading, what, refusal);
  const served = answered.find((r) => isResponseTo(r.message, id) && isRecord(r.message) && 'result' in r.message);
  ctx.check('WT-ENC-5', served === undefined, { message: `${what} is not processed`, expected: 'no result for it', actual: served?.message });
}

const wtMismatchRefused = defineCase({
  id: 'negotiation/wt-other-encoding-refused',
  suite: SUITE,
  title: 'a frame in the other encoding than the negotiated one is refused (-32003 Encoding Mismatch, or -32700) and not processed',
  requirements: ['WT-ENC-5'],
  transports: WT_ONLY,
  async run(ctx) {
    const encoding = await openEncodedSession(ctx);
    const other: EncodingName = encoding === 'cbor' ? 'json' : 'cbor';
    const id = ctx.nextId();
    ctx.note(`sending a ping in ${other} after ${encoding} was negotiated`);
    await ctx.connection.sendRaw(encodeFrame(codecFor(other).encode(request(id, 'ping'))));
    // Silence by ordering: a ping in the negotiated encoding is answered after the refusal (or the answer) of the frame before it.
    await settleReactions(ctx, QUIET_MS * 2, 'a refusal of the frame in the other encoding');
    const answered = await takeQueued(ctx, (r) => (isRecord(r.message) && 'error' in r.message && r.message.id === null) || isResponseTo(r.message, id));
    checkMismatchRefused(ctx, answered, id, `a ${other} ping after ${encoding} was negotiated`);
  },
});

const wtCborInitializeRefused = defineCase({
  id: 'negotiation/wt-cbor-initialize-refused',
  suite: SUITE,
  title: 'a CBOR-encoded initialize is refused (-32003 Encoding Mismatch, or -32700) and not processed',
  requirements: ['WT-ENC-5'],
  transports: WT_ONLY,
  async run(ctx) {
    const id = ctx.nextId();
    ctx.note('sending initialize CBOR-encoded');
    await ctx.connection.sendRaw(encodeFrame(cborCodec.encode(request(id, 'initialize', initializeParams(ctx)))));
    const isAnswer = (r: ReceivedMessage) => (isRecord(r.message) && 'error' in r.message && r.message.id === null) || isResponseTo(r.message, id);
    // The refusal is owed: waited for until it comes. No ping may follow to show that nothing else
    // does (before initialize a ping is a message WT-CONN-3 refuses): a window from the target's speed decides.
    const first = await collectFor(ctx, QUIET_MS * 2, isAnswer, 1);
    if (first.length > 0) await quietWindow(ctx, QUIET_MS * 2, 'a result for the refused CBOR initialize');
    const answered = [...first, ...(await takeQueued(ctx, isAnswer))];
    checkMismatchRefused(ctx, answered, id, 'a CBOR initialize');
  },
});

/** A definite CBOR text string of up to 255 bytes (RFC 8949 §3.1), for hand-built bodies. */
function cborText(text: string): Uint8Array {
  const bytes = new TextEncoder().encode(text);
  if (bytes.length > 255) throw new RangeError('cborText is for keys of up to 255 bytes');
  return bytes.length < 24 ? Uint8Array.of(0x60 | bytes.length, ...bytes) : Uint8Array.of(0x78, bytes.length, ...bytes);
}

/** A ping whose params._meta holds one tagged value: tag 1 (epoch time) around 1700000000. */
function taggedPingBody(id: number): Uint8Array {
  const prefix = cborCodec.encode(request(id, 'ping'));
  // The encoder wrote a 3-pair map (0xa3): make it 4 pairs and append "params": {"_meta": {"mcp-flow-conformance/when": 1(1700000000)}}.
  if (prefix[0] !== 0xa3) throw new RangeError('unexpected map header from the CBOR encoder');
  const epoch = Uint8Array.of(0xc1, 0x1a, 0x65, 0x53, 0xf1, 0x00);
  return Uint8Array.from([0xa4, ...prefix.subarray(1), ...cborText('params'), 0xa1, ...cborText('_meta'), 0xa1, ...cborText('mcp-flow-conformance/when'), ...epoch]);
}

const wtCborDataModel = defineCase({
  id: 'negotiation/wt-cbor-data-model',
  suite: SUITE,
  title: 'CBOR bodies are one data item: maps with text keys, integer ids as CBOR integers; 64-bit integers are read',
  requirements: ['WT-ENC-10', 'WT-ENC-13'],
  transports: WT_ONLY,
  applies: (discovery) => (isRecord(discovery.transport) && discovery.transport.encoding === 'cbor' ? true : 'the target did not select CBOR when offered ["cbor", "json"]'),
  async run(ctx) {
    const encoding = await openEncodedSession(ctx);
    if (encoding !== 'cbor') throw new TargetPreconditionError(`the session negotiated ${encoding}, although discovery got cbor`, { requirement: 'WT-ENC-10' });
    // The largest id a header can carry (WT-ID-1): a 32-bit CBOR integer, to be echoed as one.
    const bigId = 0xffff_ffff;
    await ctx.connection.send(request(bigId, 'ping'));
    const big = await awaitWireAnswer(ctx, bigId);
    if (ctx.check('WT-ENC-10', big.answer !== undefined && big.body !== undefined, { message: 'a ping with id 4294967295 is answered in CBOR', actual: big.answer ?? big.faults })) {
      ctx.check('WT-ENC-10', big.answer!.id === bigId, { message: 'the answer carries id 4294967295', actual: big.answer!.id });
      checkCborBody(ctx, big.body!);
    }
    // A 64-bit integer (beyond 32 bits) in params is read like any other integer.
    const wide = await requestOnWire(ctx, 'ping', { _meta: { 'mcp-flow-conformance/wide-integer': Number.MAX_SAFE_INTEGER } });
    ctx.check('WT-ENC-10', wide.answer !== undefined && isRecord(wide.answer.result), {
      message: 'a ping whose params hold a 64-bit CBOR integer (2^53-1) is answered with a result',
      actual: wide.answer ?? wide.faults,
    });
    // Tags are not needed, but RFC 8949 allows them: what the server makes of one is reported.
    const taggedId = ctx.nextId();
    await ctx.connection.sendRaw(encodeFrame(taggedPingBody(taggedId)));
    const tagged = await awaitWireAnswer(ctx, taggedId, QUIET_MS * 2);
    const nullError = ctx.connection.pending().find((r) => isRecord(r.message) && r.message.id === null && 'error' in r.message);
    ctx.info('WT-ENC-10', tagged.answer
      ? `a ping holding a tagged value (tag 1) was answered with ${isRecord(tagged.answer.result) ? 'a result' : `error ${String(errorOf(tagged.answer)?.code)}`}`
      : `a ping holding a tagged value (tag 1) was not answered${nullError ? ` (error ${String(errorOf(nullError.message as Message)?.code)} with id null)` : ''}`, tagged.answer ?? nullError?.message);
  },
});

/** Structural checks of one CBOR body the server sent (WT-ENC-10). */
function checkCborBody(ctx: CaseContext, body: Uint8Array): void {
  let shape;
  try {
    shape = cborShape(body);
  } catch (error) {
    ctx.check('WT-ENC-10', false, { message: 'the answer body is a well-formed CBOR data item', actual: error instanceof Error ? error.message : String(error) });
    return;
  }
  ctx.check('WT-ENC-10', shape.topIsMap && shape.trailingBytes === 0, { message: 'the body is one CBOR map with nothing after it', actual: { topIsMap: shape.topIsMap, trailingBytes: shape.trailingBytes } });
  ctx.check('WT-ENC-10', shape.nonTextKeys.length === 0, { message: 'every map key is a text string', actual: shape.nonTextKeys });
  ctx.check('WT-ENC-13', shape.idMajor === 0, { message: 'the integer id is a CBOR unsigned integer (major type 0), never a float', expected: 0, actual: shape.idMajor });
  if (shape.integralFloats.length > 0) ctx.info('WT-ENC-13', 'integral values written as CBOR floats', shape.integralFloats);
  if (shape.tags.length > 0) ctx.info('WT-ENC-10', 'the body carries tags (none are needed)', shape.tags);
}

export const cases: readonly ConformanceCase[] = [
  ...PROTOCOL_VERSIONS.map(versionEchoed),
  unknownVersionOffered,
  versionHeaderRefused,
  interactiveAdvertised,
  capabilitiesMethod,
  wrongDirectionRefused,
  notInteractiveRefuses,
  wtTransportResult,
  wtUnknownTransportType,
  wtOtherTransportVersion,
  wtTransportOmitted,
  wtEncodingsOmitted,
  wtJsonFirst,
  wtJsonOnly,
  wtUnknownOnly,
  wtUnknownIgnored,
  wtCborOnly,
  wtSwitchAtBoundary,
  wtMismatchRefused,
  wtCborInitializeRefused,
  wtCborDataModel,
];
