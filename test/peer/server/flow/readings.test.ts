// The engine's reading switches (src/peer/server/flow/options.ts): each takes another accepted
// reading of a FLOW requirement than the default, and the 'alternate' preset switches them all
// (the transports splitting the readings a requirement accepts more than two of).
import { describe, expect, it } from 'vitest';
import { flowReadings, parseWizard, type Wizard } from '../../../../src/peer/server/flow/index.js';
import { answer, latestSessionId, testServer, type FakeConnection } from './harness.js';

function oneStep(prompt: Record<string, unknown>, initialPrompt = true): Wizard {
  return parseWizard({
    name: 'ask',
    description: 'asks one thing',
    ...(initialPrompt ? { initialPrompt: true } : {}),
    steps: [{ id: 'answer', prompt }],
    result: { data: { answer: '{{data.answer}}' } },
  });
}

const CONFIRM = oneStep({ type: 'confirm', message: 'ok?' });
const REQUIRED_TEXT = oneStep({ type: 'text', message: 'name?', validation: { required: true } });

async function start(conn: FakeConnection, toolName = 'ask', extra: Record<string, unknown> = {}): Promise<string> {
  return (await conn.call('interaction.start', { toolName, ...extra })).sessionId as string;
}

describe('flowReadings presets', () => {
  it('recommended changes nothing; alternate switches every reading, splitting the three-way ones by transport', () => {
    expect(flowReadings('recommended', 'wt')).toEqual({});
    const [wt, http, stdio] = [flowReadings('alternate', 'wt'), flowReadings('alternate', 'http'), flowReadings('alternate', 'stdio')];
    expect(wt).toMatchObject({ capabilityLocation: 'top-level', cancelFinished: 'cancel', initialPromptState: 'idle', rejectWithError: true, reprompt: false });
    expect(http).toMatchObject({ capabilityLocation: 'method-only', cancelFinished: 'refuse-with-result' });
    expect(stdio).toMatchObject({ capabilityLocation: 'top-level', cancelFinished: 'cancel', retentionMs: 0 });
    expect(wt.retentionMs).toBeUndefined();
  });

  it('the alternate engine serves a whole wizard with every switch on', async () => {
    const server = testServer({ ...flowReadings('alternate', 'wt'), wizards: [oneStep({ type: 'number', message: 'n?', validation: { min: 1, max: 9 } })] });
    const conn = server.connect({ checkSchemas: false });
    const sessionId = await start(conn);
    expect((await conn.call('interaction.getState', { sessionId })).state).toBe('idle');
    expect(await answer(server, conn, sessionId, '5')).toEqual({ accepted: true });
    expect(conn.requests('interaction.complete', sessionId)[0]?.result).toEqual({ success: true, data: { answer: '5' } });
    expect(server.ext.engine.failures).toEqual([]);
  });
});

describe('the reading switches', () => {
  it('notInteractiveCode: with interactive mode off, interaction.* is answered -32601 as by a plain MCP server (FLOW-CAP-7 reading 2)', async () => {
    const conn = testServer({ interactive: false, notInteractiveCode: -32601 }).connect();
    expect((await conn.error('interaction.start', { toolName: 'booking' })).code).toBe(-32601);
    expect((await conn.error('interaction.getState', { sessionId: 's' })).code).toBe(-32601);
  });

  it('unknownToolCode: an unknown tool is refused with the code given (FLOW-START-4)', async () => {
    const conn = testServer({ unknownToolCode: -32601 }).connect();
    expect((await conn.error('interaction.start', { toolName: 'nope' })).code).toBe(-32601);
  });

  it('invalidTimeout lenient: a bad timeout is ignored, a numeric string taken as its number (FLOW-START-9)', async () => {
    const server = testServer({ invalidTimeout: 'lenient', wizards: [CONFIRM] });
    const conn = server.connect();
    for (const timeout of [0, -5, 1.5, 'soon']) expect(typeof (await start(conn, 'ask', { timeout }))).toBe('string');
    const sessionId = await start(conn, 'ask', { timeout: '2000' });
    server.clock.advance(2000);
    expect((await conn.error('interaction.getState', { sessionId })).code).toBe(-32002);
  });

  it('firstPromptVia continue and continueAsNotification: the first prompt is a notification interaction.continue with nextPrompt (FLOW-START-8, C-11)', async () => {
    const server = testServer({ firstPromptVia: 'continue', continueAsNotification: true, wizards: [oneStep({ type: 'confirm', message: 'go?' }, false)] });
    const conn = server.connect();
    const sessionId = await start(conn);
    await server.settle();
    const first = conn.sent.find((m) => m.method === 'interaction.continue');
    expect(first).toMatchObject({ kind: 'notification', params: { sessionId, nextPrompt: { type: 'confirm', message: 'go?' } } });
    expect(conn.requests('interaction.prompt')).toEqual([]);
    expect(await answer(server, conn, sessionId, true)).toMatchObject({ accepted: true });
  });

  it('acceptedValidation off: an accepted value is answered {"accepted": true} alone (FLOW-RESPOND-2 reading 2)', async () => {
    const server = testServer({ acceptedValidation: false, wizards: [CONFIRM] });
    const conn = server.connect();
    expect(await answer(server, conn, await start(conn), true)).toEqual({ accepted: true });
  });

  it('missingValue validate: a response without value is a missing answer, refused by a required prompt (FLOW-RESPOND-7 reading 2)', async () => {
    const server = testServer({ missingValue: 'validate', wizards: [REQUIRED_TEXT] });
    const conn = server.connect();
    const sessionId = await start(conn);
    expect(await conn.call('interaction.respond', { sessionId, response: { timestamp: 1 } })).toMatchObject({ accepted: false, validation: { valid: false } });
    expect((await conn.error('interaction.respond', { sessionId, response: 'yes' })).code).toBe(-32602);
  });

  it('respondWhenCancelled invalid-state: a respond on a cancelled session gets -32003 (FLOW-RESPOND-6 reading 2)', async () => {
    const server = testServer({ respondWhenCancelled: 'invalid-state', wizards: [CONFIRM] });
    const conn = server.connect();
    const sessionId = await start(conn);
    await conn.call('interaction.cancel', { sessionId });
    expect((await conn.error('interaction.respond', { sessionId, response: { value: true } })).code).toBe(-32003);
    expect((await conn.error('interaction.cancel', { sessionId })).code).toBe(-32006);
  });

  it('cancelFinished: a completed session is cancelled literally, or refused with {"cancelled": false} (FLOW-CANCEL-4, C-23)', async () => {
    for (const [reading, result, state] of [
      ['cancel', { cancelled: true }, 'cancelled'],
      ['refuse-with-result', { cancelled: false }, 'completed'],
    ] as const) {
      const server = testServer({ cancelFinished: reading, wizards: [CONFIRM] });
      const conn = server.connect();
      const sessionId = await start(conn);
      await answer(server, conn, sessionId, true);
      expect(await conn.call('interaction.cancel', { sessionId }), reading).toEqual(result);
      expect((await conn.call('interaction.getState', { sessionId })).state, reading).toBe(state);
      expect((await conn.error('interaction.respond', { sessionId, response: { value: true } })).code, reading).toBe(state === 'cancelled' ? -32006 : -32003);
    }
  });

  it('historyTurnBase and recordRejectedTurns: turns count from 1 and a rejection is a turn, never data (FLOW-STATE-2, FLOW-VALID-10)', async () => {
    const server = testServer({ historyTurnBase: 1, recordRejectedTurns: true, reprompt: false, wizards: [CONFIRM] });
    const conn = server.connect();
    const sessionId = await start(conn);
    expect((await answer(server, conn, sessionId, 'maybe')).accepted).toBe(false);
    const rejected = await conn.call('interaction.getState', { sessionId });
    expect(rejected.accumulatedData).toEqual({});
    expect((rejected.history as { turnId: number; response: { value: unknown } }[]).map((t) => [t.turnId, t.response.value])).toEqual([[1, 'maybe']]);
    await answer(server, conn, sessionId, true);
    const done = await conn.call('interaction.getState', { sessionId });
    expect((done.history as { turnId: number }[]).map((t) => t.turnId)).toEqual([1, 2]);
    expect(done.accumulatedData).toEqual({ answer: true });
  });

  it('recordRejectedTurns: progress still counts accepted answers only', async () => {
    const server = testServer({ recordRejectedTurns: true });
    const conn = server.connect();
    const sessionId = await start(conn, 'booking');
    await answer(server, conn, sessionId, '!');
    await answer(server, conn, sessionId, 'Lisbon');
    const progress = conn.requests('interaction.prompt', sessionId).at(-1)?.progress as { current: number; total: number };
    expect(progress.current).toBe(1);
  });

  it('timeoutWarningLevel notice: the warning names the session at another log level (C-22 reading 2)', async () => {
    const server = testServer({ timeoutWarningLevel: 'notice', wizards: [CONFIRM] });
    const conn = server.connect();
    const sessionId = await start(conn, 'ask', { timeout: 1000 });
    server.clock.advance(900);
    expect(conn.logs.map((l) => l.level)).toEqual(['notice']);
    expect(JSON.stringify(conn.logs[0]?.data)).toContain(sessionId);
  });

  it('extensionMembers: every prompt carries an _meta member 000 does not name (rule 4)', async () => {
    const server = testServer({ extensionMembers: true, wizards: [CONFIRM] });
    const conn = server.connect({ checkSchemas: false });
    const started = await conn.call('interaction.start', { toolName: 'ask' });
    expect(started.initialPrompt).toMatchObject({ type: 'confirm', message: 'ok?', _meta: { 'mcp-flow-conformance/readings': 'alternate' } });
  });

  it('initialPromptState idle: getState reports idle until the initial prompt is answered (C-03 reading 2)', async () => {
    const server = testServer({ initialPromptState: 'idle', wizards: [oneStep({ type: 'confirm', message: 'a?' })] });
    const conn = server.connect();
    const sessionId = await start(conn);
    const waiting = await conn.call('interaction.getState', { sessionId });
    expect(waiting).toMatchObject({ state: 'idle', currentPrompt: { type: 'confirm', message: 'a?' } });
    await answer(server, conn, sessionId, true);
    expect((await conn.call('interaction.getState', { sessionId })).state).toBe('completed');
  });

  it('tamperedTokenCode: a tampered stateless token is refused with -32602 (FLOW-STATELESS-4 reading 2)', async () => {
    const server = testServer({ tamperedTokenCode: -32602, stateless: { secret: 'a-secret-of-at-least-thirty-two-bytes!' }, wizards: [CONFIRM] });
    const conn = server.connect();
    const token = latestSessionId(conn, await start(conn));
    const tampered = `${token.slice(0, -2)}${token.endsWith('A') ? 'B' : 'A'}${token.slice(-1)}`;
    expect((await conn.error('interaction.getState', { sessionId: tampered })).code).toBe(-32602);
    expect((await conn.call('interaction.getState', { sessionId: token })).state).toBe('waiting_user');
  });
});
