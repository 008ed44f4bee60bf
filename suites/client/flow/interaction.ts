// Suite `interaction` (client side, MCP Flow, seed 000): the client starts a session and answers
// each prompt with interaction.respond; it acknowledges interaction.prompt/continue for its
// session, refuses them for a session it does not know (-32001 + data.sessionId), answers
// interaction.complete with {success, finalResult: result.data}, answers again after a rejected
// value, and refuses interaction.* requests meant for the server (-32601).
import { isDeepStrictEqual } from 'node:util';
import { defineCase, type CaseContext, type ConformanceCase } from '../../../src/harness/index.js';
import { isRecord } from '../../../src/wire/index.js';
import {
  askDuringCall,
  callInFlight,
  CODE,
  describe,
  ECHO_CALL,
  ending,
  errorOf,
  FLOW_CAPABILITIES,
  isRequest,
  paramsOf,
  resultResponse,
  ScriptedServer,
  stderrTail,
  STEP_WAIT_MS,
  type Message,
  type RequestId,
} from '../../support/scripted-server.js';

const SUITE = 'interaction';
const TOOL = 'interview';
/** What the scripted server advertises in initialize (C-14: under experimental, like the mock server). */
const INTERACTIVE_INITIALIZE = { result: { capabilities: { experimental: { interactive: FLOW_CAPABILITIES } } } };
const NAME_PROMPT = { type: 'text', message: 'Your name?', validation: { required: true } } as const;
const CONFIRM_PROMPT = { type: 'confirm', message: 'Send the registration?' } as const;
const DATE_PROMPT = { type: 'date', message: 'Travel date?', validation: { required: true } } as const;

/** MCP Flow requests only a server sends (FLOW-CAP-8). */
const SERVER_TO_CLIENT = new Set(['interaction.prompt', 'interaction.continue', 'interaction.complete']);

/** A scripted interaction: the server, the session id it gave, and the client's first interaction.respond (not answered yet). */
interface Started {
  server: ScriptedServer;
  sessionId: string;
  first: Message & { id: RequestId };
}

/**
 * Opens an interactive session, serves until the client's interaction.start, answers it with
 * `initialPrompt`, and waits for the client's answer to that prompt. No start or no answer is a
 * precondition failure.
 */
async function startSession(ctx: CaseContext, initialPrompt: Message): Promise<Started> {
  const server = new ScriptedServer(ctx);
  await server.open(INTERACTIVE_INITIALIZE);
  const received = await server.serveUntil((r) => isRequest(r.message, 'interaction.start'));
  if (!received) throw server.precondition('the client did not send interaction.start');
  const start = received.message as Message & { id: RequestId };
  const params = paramsOf(start);
  const optionalObject = (value: unknown) => value === undefined || isRecord(value);
  ctx.check('FLOW-START-1', typeof params.toolName === 'string' && optionalObject(params.initialParams) && optionalObject(params.context), {
    message: 'interaction.start params: a string toolName; initialParams and context objects when present',
    expected: { toolName: TOOL },
    actual: params,
  });
  const sessionId = `session_conformance_${ctx.nextId()}`;
  await server.send(resultResponse(start.id, { sessionId, state: 'waiting_user', initialPrompt }));
  const first = await nextRespond(ctx, server, sessionId);
  if (!first) throw server.precondition('the client did not answer the initialPrompt with interaction.respond');
  return { server, sessionId, first };
}

/** Serves until the next interaction.respond; checks its params (FLOW-RESPOND-1). Undefined when none came. */
async function nextRespond(ctx: CaseContext, server: ScriptedServer, sessionId: string): Promise<(Message & { id: RequestId }) | undefined> {
  const received = await server.serveUntil((r) => isRequest(r.message, 'interaction.respond'));
  if (!received) return undefined;
  const respond = received.message as Message & { id: RequestId };
  const params = paramsOf(respond);
  const response = isRecord(params.response) ? params.response : undefined;
  ctx.check('FLOW-RESPOND-1', params.sessionId === sessionId && response !== undefined && 'value' in response && (params.timestamp === undefined || Number.isInteger(params.timestamp)), {
    message: 'interaction.respond params: the sessionId and a response object with a value',
    expected: { sessionId, response: { value: '...' } },
    actual: params,
  });
  return respond;
}

function valueOf(respond: Message | undefined): unknown {
  const response = paramsOf(respond).response;
  return isRecord(response) ? response.value : undefined;
}

const completedSession = defineCase({
  id: 'interaction/session-completed',
  suite: SUITE,
  title: 'FLOW-PROMPT-2, FLOW-PROMPT-12, FLOW-SM-8, FLOW-SM-9: prompts and continues of the session are acknowledged; interaction.complete answered with {success, finalResult: data}',
  requirements: ['FLOW-START-1', 'FLOW-RESPOND-1', 'FLOW-RESPOND-8', 'FLOW-PROMPT-2', 'FLOW-PROMPT-12', 'FLOW-SM-8', 'FLOW-SM-9', 'FLOW-CAP-8'],
  scenario: { name: 'interaction', context: { tool: TOOL, answers: ['Ada Lovelace', true] } },
  async run(ctx) {
    const { server, sessionId, first } = await startSession(ctx, NAME_PROMPT);
    await server.send(resultResponse(first.id, { accepted: true, validation: { valid: true } }));

    const ack = await server.request('FLOW-PROMPT-2', 'interaction.prompt', { sessionId, prompt: CONFIRM_PROMPT, progress: { current: 2, total: 2 } });
    if (ack) {
      const result = isRecord(ack.result) ? ack.result : undefined;
      ctx.check('FLOW-PROMPT-2', result?.acknowledged === true, {
        message: 'interaction.prompt for the client\'s session is answered {"acknowledged": true}',
        expected: { result: { acknowledged: true } },
        actual: ack,
      });
      // Members beyond the ones the profile names are not a failure.
      if (result?.acknowledged === true && Object.keys(result).length > 1) ctx.info('FLOW-PROMPT-2', `the acknowledgement carries more members: ${JSON.stringify(result)}`, result);
    }
    const second = await nextRespond(ctx, server, sessionId);
    if (!second) throw server.precondition('the client did not answer the interaction.prompt with interaction.respond');
    await server.send(resultResponse(second.id, { accepted: true }));

    const progress = await server.request('FLOW-PROMPT-12', 'interaction.continue', { sessionId, progress: { current: 2, total: 2, message: 'Registering' } });
    if (progress) {
      // Any result object is an accepted answer (FLOW-PROMPT-12's readings); {"acknowledged": true} is recommended.
      ctx.check('FLOW-PROMPT-12', isRecord(progress.result), {
        message: 'interaction.continue for the client\'s session is answered with a result',
        expected: { result: { acknowledged: true } },
        actual: progress,
      });
      if (isRecord(progress.result) && !isDeepStrictEqual(progress.result, { acknowledged: true })) {
        ctx.info('FLOW-PROMPT-12', `interaction.continue answered with ${JSON.stringify(progress.result)} rather than {"acknowledged": true} (another result object, an accepted reading)`, progress.result);
      }
    }
    // Two prompts were put to the user: two responds, no more (FLOW-RESPOND-8).
    const extra = server.seen.filter((s) => isRequest(s.received.message, 'interaction.respond')).length - 2;
    ctx.check('FLOW-RESPOND-8', extra <= 0, {
      message: 'interaction.respond is sent only while the session waits for the user (one per prompt)',
      expected: '2 responds for 2 prompts',
      actual: `${extra + 2} responds`,
    });

    const data = { name: 'Ada Lovelace', registered: true };
    const completion = await server.request('FLOW-SM-8', 'interaction.complete', { sessionId, result: { success: true, data }, summary: 'Registered' });
    if (completion) {
      const result = isRecord(completion.result) ? completion.result : undefined;
      ctx.check('FLOW-SM-8', typeof result?.success === 'boolean', {
        message: 'interaction.complete is answered with a result having a boolean success',
        expected: { result: { success: true, finalResult: data } },
        actual: completion,
      });
      ctx.check('FLOW-SM-9', result !== undefined && isDeepStrictEqual(result.finalResult, data), {
        message: 'the finalResult is the result.data the client received',
        expected: data,
        actual: result?.finalResult,
      });
    }
    const exit = await server.untilExit();
    const wrongWay = server.requests().filter((r) => SERVER_TO_CLIENT.has(r.method));
    ctx.check('FLOW-CAP-8', wrongWay.length === 0, {
      message: 'the client sends no server-to-client MCP Flow request (interaction.prompt, .continue, .complete)',
      expected: 'client-to-server requests only',
      actual: wrongWay.length > 0 ? wrongWay.map((r) => describe(r)) : 'none',
    });
    ctx.info('FLOW-SM-8', `after the completed interaction the client ${ending(exit)}`, { exit, stderr: stderrTail(ctx) });
  },
});

const retryAfterRejection = defineCase({
  id: 'interaction/retry-after-rejection',
  suite: SUITE,
  title: 'FLOW-VALID-12: after accepted:false the client answers the re-prompt with its next value',
  requirements: ['FLOW-START-1', 'FLOW-RESPOND-1', 'FLOW-VALID-12'],
  scenario: { name: 'interaction', context: { tool: TOOL, answers: ['next tuesday', '2024-05-17'] } },
  async run(ctx) {
    const { server, sessionId, first } = await startSession(ctx, DATE_PROMPT);
    const error = 'Invalid date: expected YYYY-MM-DD';
    await server.send(resultResponse(first.id, { accepted: false, validation: { valid: false, error, suggestion: 'Use YYYY-MM-DD' } }));
    // 000 §Example: Validation Retry: the prompt comes again, carrying the error.
    const mark = server.mark();
    await server.sendRequest('interaction.prompt', { sessionId, prompt: { ...DATE_PROMPT, error } });
    const second = await nextRespond(ctx, server, sessionId);
    if (!second) server.absent('an interaction.respond to the re-prompt', mark);
    ctx.check('FLOW-VALID-12', second !== undefined && valueOf(second) === '2024-05-17', {
      message: 'after the rejected value the next interaction.respond for the session carries the next answer',
      expected: { sessionId, response: { value: '2024-05-17' } },
      actual: second ? paramsOf(second) : `no further interaction.respond within ${ctx.scaled(STEP_WAIT_MS)} ms: ${server.observed()}`,
    });
    if (!second) return;
    await server.send(resultResponse(second.id, { accepted: true }));
    await server.request('FLOW-VALID-12', 'interaction.complete', { sessionId, result: { success: true, data: { date: '2024-05-17' } } });
    await server.untilExit();
  },
});

/** A session id the client never started. */
const UNKNOWN_SESSION = 'session_never_started_by_this_client';

const unknownSession = defineCase({
  id: 'interaction/unknown-session-refused',
  suite: SUITE,
  title: 'FLOW-PROMPT-2: interaction.prompt for a session the client does not know is answered -32001 with data.sessionId',
  requirements: ['FLOW-PROMPT-2'],
  scenario: { name: 'tools-call', context: ECHO_CALL },
  async run(ctx) {
    // Asked while the client's call is open, so that over Streamable HTTP the request rides its event stream.
    await askDuringCall(ctx, 'FLOW-PROMPT-2', 'interaction.prompt', { sessionId: UNKNOWN_SESSION, prompt: NAME_PROMPT }, (answer) => {
      const error = errorOf(answer);
      ctx.check('FLOW-PROMPT-2', error?.code === CODE.sessionNotFound && isRecord(error.data) && error.data.sessionId === UNKNOWN_SESSION, {
        message: 'interaction.prompt for an unknown session is answered with -32001 and data.sessionId',
        expected: { error: { code: CODE.sessionNotFound, data: { sessionId: UNKNOWN_SESSION } } },
        actual: answer,
      });
    });
  },
});

/** Requests only a client sends; a client receiving one answers -32601 (FLOW-CAP-8/9). */
const SERVER_BOUND: readonly [string, Message][] = [
  ['interaction.start', { toolName: 'echo' }],
  ['interaction.respond', { sessionId: UNKNOWN_SESSION, response: { value: 'x' } }],
  ['interaction.cancel', { sessionId: UNKNOWN_SESSION, reason: 'wrong direction' }],
];

const wrongDirection = defineCase({
  id: 'interaction/server-bound-requests-refused',
  suite: SUITE,
  title: 'FLOW-CAP-9: interaction.start, .respond and .cancel sent to the client are answered -32601 Method not found',
  requirements: ['FLOW-CAP-9'],
  scenario: { name: 'tools-call', context: ECHO_CALL },
  // The requests go the wrong way on purpose: the schemas say client-to-server.
  sendsInvalid: true,
  async run(ctx) {
    const { server, call } = await callInFlight(ctx);
    for (const [method, params] of SERVER_BOUND) {
      const answer = await server.request('FLOW-CAP-9', method, params);
      if (!answer) continue;
      ctx.check('FLOW-CAP-9', errorOf(answer)?.code === CODE.methodNotFound, {
        message: `${method} sent by the server is answered with -32601`,
        expected: { error: { code: CODE.methodNotFound } },
        actual: describe(answer) + ' ' + JSON.stringify(answer.error ?? answer.result),
      });
    }
    await server.finishCall(call);
  },
});

export const cases: readonly ConformanceCase[] = [completedSession, retryAfterRejection, unknownSession, wrongDirection];
