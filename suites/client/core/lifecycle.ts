// Suite `lifecycle` (client side): the initialize exchange as the client drives it: initialize
// first with the required params, nothing else until its answer, notifications/initialized next,
// and what the client does when initialize fails or names a version it cannot speak (002
// §Lifecycle, 001 §1).
import { defineCase, type ClientExit, type ConformanceCase } from '../../../src/harness/index.js';
import { isRecord } from '../../../src/wire/index.js';
import {
  clientMessages,
  describe,
  EXIT_WAIT_MS,
  ending,
  faultCodes,
  initializeSeq,
  isNotification,
  isRequest,
  paramsOf,
  QUIET_MS,
  ScriptedServer,
  STEP_WAIT_MS,
  type ClientMessage,
} from '../../support/scripted-server.js';

const SUITE = 'lifecycle';
const INITIALIZE = { name: 'initialize' } as const;

const initializeFirst = defineCase({
  id: 'lifecycle/initialize-first',
  suite: SUITE,
  title: 'CORE-LIFE-1/2: the first request is initialize, with protocolVersion, capabilities and clientInfo {name, version}',
  requirements: ['CORE-LIFE-1', 'CORE-LIFE-2', 'CORE-CAP-6'],
  scenario: INITIALIZE,
  async run(ctx) {
    const server = new ScriptedServer(ctx);
    const request = await server.awaitInitialize();
    // What came before it: the transcript holds delivered messages and (WebTransport) the ones the
    // session refused (FIRST_MESSAGE_NOT_INITIALIZE). Only a request breaks the rule.
    const initializeAt = initializeSeq(ctx) ?? Infinity;
    const earlier = clientMessages(ctx).filter((m) => m.seq < initializeAt);
    const earlierRequests = earlier.filter((m) => isRequest(m.message));
    ctx.check('CORE-LIFE-1', earlierRequests.length === 0, {
      message: 'initialize is the first request the client sends',
      expected: 'initialize first',
      actual: earlierRequests.length > 0 ? `first came ${earlierRequests.map((m) => describe(m.message)).join(', ')}` : 'initialize first',
    });
    if (earlier.length > earlierRequests.length) {
      ctx.info('CORE-LIFE-1', `before initialize the client sent ${earlier.filter((m) => !isRequest(m.message)).map((m) => describe(m.message)).join(', ')} (not a request)`);
    }
    const params = paramsOf(request);
    const clientInfo = isRecord(params.clientInfo) ? params.clientInfo : undefined;
    ctx.check('CORE-LIFE-2', typeof params.protocolVersion === 'string' && isRecord(params.capabilities) && typeof clientInfo?.name === 'string' && typeof clientInfo.version === 'string', {
      message: 'initialize params carry protocolVersion (string), capabilities (object) and clientInfo with string name and version',
      expected: { protocolVersion: 'string', capabilities: {}, clientInfo: { name: 'string', version: 'string' } },
      actual: params,
    });
    const capabilities = isRecord(params.capabilities) ? params.capabilities : {};
    const notObjects = Object.entries(capabilities).filter(([, value]) => !isRecord(value)).map(([name]) => name);
    const flags = Object.values(capabilities).flatMap((value) =>
      isRecord(value) ? (['listChanged', 'subscribe'] as const).filter((flag) => flag in value && typeof value[flag] !== 'boolean') : [],
    );
    ctx.check('CORE-CAP-6', notObjects.length === 0 && flags.length === 0, {
      message: 'every capability the client declares is an object; listChanged/subscribe are booleans',
      expected: 'objects, e.g. {"roots": {"listChanged": true}}',
      actual: notObjects.length > 0 || flags.length > 0 ? capabilities : Object.keys(capabilities).length === 0 ? 'no capabilities declared' : capabilities,
    });
    await server.answerInitialize();
    await server.untilExit();
  },
});

const initializedNotification = defineCase({
  id: 'lifecycle/initialized-notification',
  suite: SUITE,
  title: 'CORE-LIFE-4: after the initialize result the client sends notifications/initialized before any request but ping',
  requirements: ['CORE-LIFE-4'],
  scenario: INITIALIZE,
  async run(ctx) {
    const server = new ScriptedServer(ctx);
    await server.open();
    // Ping may come first; any other request before the notification breaks the rule.
    const first = await server.serveUntil((r) => isNotification(r.message, 'notifications/initialized') || (isRequest(r.message) && r.message.method !== 'ping'));
    if (!first) server.absent('notifications/initialized');
    ctx.check('CORE-LIFE-4', first !== undefined && isNotification(first.message, 'notifications/initialized'), {
      message: 'notifications/initialized comes before any request other than ping',
      expected: 'notification notifications/initialized',
      actual: first ? describe(first.message) : `no notifications/initialized within ${ctx.scaled(STEP_WAIT_MS)} ms: ${server.observed()}`,
    });
    if (first) await server.serve(first.message);
    await server.untilExit();
  },
});

const nothingBeforeResult = defineCase({
  id: 'lifecycle/nothing-before-initialize-result',
  suite: SUITE,
  title: 'WT-CONN-5, CORE-LIFE-6: nothing is sent on the control stream between initialize and its answer',
  requirements: ['WT-CONN-5', 'CORE-LIFE-6'],
  // Over Streamable HTTP a message before the initialize answer has no session to reach.
  transports: ['webtransport'],
  scenario: INITIALIZE,
  async run(ctx) {
    const server = new ScriptedServer(ctx);
    // The answer is held back a little: a client that does not wait shows it now.
    await server.open({ delayMs: QUIET_MS });
    const answeredAt = server.initializeAnsweredAt();
    const initializeAt = initializeSeq(ctx) ?? -1;
    const between = clientMessages(ctx).filter((m) => m.seq > initializeAt && m.seq < answeredAt);
    const refused = faultCodes(ctx).filter((code) => code === 'MESSAGE_BEFORE_READY');
    ctx.check('WT-CONN-5', between.length === 0 && refused.length === 0, {
      message: 'the client sends nothing between its initialize request and the initialize response',
      expected: 'nothing',
      actual: between.length > 0 ? between.map((m) => describe(m.message)) : refused.length > 0 ? `${refused.length} message(s) refused as MESSAGE_BEFORE_READY` : 'nothing',
    });
    const requests = between.filter((m) => isRequest(m.message) && m.message.method !== 'ping');
    ctx.check('CORE-LIFE-6', requests.length === 0, {
      message: 'no request other than ping before the initialize response',
      expected: 'no request',
      actual: requests.length > 0 ? requests.map((m) => describe(m.message)) : 'none',
    });
    await server.untilExit();
  },
});

/**
 * After an initialize answer the client cannot go on with: waits a little, serves the client until
 * it exits, and returns the requests it sent after the answer (a new initialize aside).
 */
async function requestsAfterAnswer(server: ScriptedServer): Promise<{ later: ClientMessage[]; exit: ClientExit | undefined }> {
  const answeredAt = server.initializeAnsweredAt();
  await server.collect(QUIET_MS);
  const exit = await server.untilExit(EXIT_WAIT_MS / 2);
  const later = clientMessages(server.ctx).filter((m) => m.seq > answeredAt && isRequest(m.message) && m.message.method !== 'initialize');
  return { later, exit };
}

const initializeError = defineCase({
  id: 'lifecycle/initialize-error-stops',
  suite: SUITE,
  title: 'CORE-LIFE-9: after initialize is answered with an error the client sends no request but a new initialize',
  requirements: ['CORE-LIFE-9'],
  scenario: INITIALIZE,
  async run(ctx) {
    const server = new ScriptedServer(ctx);
    await server.open({ error: { code: -32602, message: 'initialize refused by the conformance harness (on purpose)' } });
    // Requests the session refused (it is back before initialize) are in the transcript too;
    // notifications are not requests, so they do not count.
    const { later, exit } = await requestsAfterAnswer(server);
    ctx.check('CORE-LIFE-9', later.length === 0, {
      message: 'no request other than a new initialize after the failed initialize',
      expected: 'no request',
      actual: later.length > 0 ? later.map((m) => describe(m.message)) : 'none',
    });
    ctx.info('CORE-LIFE-9', `the client ${ending(exit)} after the failed initialize (the driver contract asks for a non-zero status)`, exit);
  },
});

/** A version no client can support: date-shaped, far in the future. */
const UNKNOWN_VERSION = '2999-12-31';

const unsupportedVersion = defineCase({
  id: 'lifecycle/unsupported-version-disconnects',
  suite: SUITE,
  title: 'CORE-VER-5: a client given a protocol version it does not support sends no further requests',
  requirements: ['CORE-VER-5'],
  // Over Streamable HTTP a request carrying the foreign version in MCP-Protocol-Version is refused
  // (400) before it reaches the session, so the harness cannot see whether the client went on.
  transports: ['webtransport'],
  scenario: INITIALIZE,
  async run(ctx) {
    const server = new ScriptedServer(ctx);
    await server.open({ result: { protocolVersion: UNKNOWN_VERSION } });
    const { later, exit } = await requestsAfterAnswer(server);
    ctx.check('CORE-VER-5', later.length === 0, {
      message: `no request after the server answered with protocol version ${UNKNOWN_VERSION}`,
      expected: 'the client disconnects',
      actual: later.length > 0 ? later.map((m) => describe(m.message)) : 'none',
    });
    ctx.info('CORE-VER-5', `the client ${ending(exit)}; the session was ${ctx.connection.isClosed ? 'closed' : 'still open'}`, exit);
  },
});

/** 2025-06-18 and later versions ask for the MCP-Protocol-Version header (CORE-VER-7). */
const HEADER_VERSIONS = new Set(['2025-06-18', '2025-11-25']);

const protocolVersionHeader = defineCase({
  id: 'lifecycle/protocol-version-header',
  suite: SUITE,
  title: 'CORE-VER-7: over Streamable HTTP every request after initialize carries MCP-Protocol-Version with the negotiated version',
  requirements: ['CORE-VER-7'],
  transports: ['http'],
  scenario: INITIALIZE,
  applies: (discovery) =>
    typeof discovery.protocolVersion === 'string' && HEADER_VERSIONS.has(discovery.protocolVersion)
      ? true
      : `the client asks for ${String(discovery.protocolVersion)}, which predates the MCP-Protocol-Version header`,
  async run(ctx) {
    const server = new ScriptedServer(ctx);
    const request = await server.awaitInitialize();
    const version = String(paramsOf(request).protocolVersion);
    await server.answerInitialize({ result: { protocolVersion: version } });
    await server.untilExit();
    const initializeAt = initializeSeq(ctx) ?? Infinity;
    const later = clientMessages(ctx).filter((m) => m.seq > initializeAt);
    const wrong = later.filter((m) => m.headers?.['mcp-protocol-version'] !== version);
    if (later.length === 0) {
      ctx.info('CORE-VER-7', `the client sent nothing after initialize, so no header to judge: ${server.observed()}`);
      return;
    }
    ctx.check('CORE-VER-7', wrong.length === 0, {
      message: `every POST after initialize carries MCP-Protocol-Version: ${version}`,
      expected: version,
      actual: wrong.length === 0 ? version : wrong.slice(0, 3).map((m) => `${describe(m.message)}: ${JSON.stringify(m.headers?.['mcp-protocol-version'] ?? null)}`),
    });
  },
});

export const cases: readonly ConformanceCase[] = [
  initializeFirst,
  initializedNotification,
  nothingBeforeResult,
  initializeError,
  unsupportedVersion,
  protocolVersionHeader,
];
