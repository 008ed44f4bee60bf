// The MCP Flow engine's behaviour through its handlers: capabilities, interaction.start errors,
// the validation-retry flow for each prompt type, the state machine's errors, cancel, getState,
// isolation, session ids, timeouts on a fake clock, and limits.
import { describe, expect, it } from 'vitest';
import { assessSessionIds } from '../../../../src/protocol/session-ids.js';
import { RpcError } from '../../../../src/peer/server/extension.js';
import { parseWizard, type Wizard } from '../../../../src/peer/server/flow/index.js';
import { answer, testServer, type FakeConnection, type TestServer } from './harness.js';

function oneStep(prompt: Record<string, unknown>, extra: Record<string, unknown> = {}): Wizard {
  return parseWizard({
    name: 'ask',
    description: 'asks one thing',
    initialPrompt: true,
    steps: [{ id: 'answer', prompt }],
    result: { data: { answer: '{{data.answer}}' } },
    ...extra,
  });
}

async function start(conn: FakeConnection, toolName = 'booking', extra: Record<string, unknown> = {}): Promise<string> {
  return (await conn.call('interaction.start', { toolName, ...extra })).sessionId as string;
}

describe('capabilities', () => {
  it('answers the capabilities method with the 000 capability object', async () => {
    const conn = testServer().connect();
    expect(await conn.call('capabilities')).toEqual({
      interactive: true,
      version: '0.1.0',
      features: { statefulSessions: true, progressTracking: true, validation: true, multiplePromptTypes: true, sessionPersistence: false },
    });
  });

  it.each([
    ['experimental', { experimental: { interactive: expect.objectContaining({ interactive: true }) } }],
    ['top-level', { interactive: expect.objectContaining({ interactive: true, version: '0.1.0' }) }],
    ['method-only', {}],
  ] as const)('advertises interactive in initialize per capabilityLocation %s', (capabilityLocation, expected) => {
    const server = testServer({ capabilityLocation });
    expect(server.ext.capabilities?.(server.connect().context)).toEqual(expected);
  });

  it('with interactive mode off says so and answers every interaction.* with -32007', async () => {
    const server = testServer({ interactive: false });
    const conn = server.connect();
    expect((await conn.call('capabilities')).interactive).toBe(false);
    expect(server.ext.capabilities?.(conn.context)).toEqual({});
    expect((await conn.error('interaction.start', { toolName: 'booking' })).code).toBe(-32007);
    const error = await conn.error('interaction.getState', { sessionId: 'session_x' });
    expect(error.toJSON()).toEqual({ code: -32007, message: expect.any(String), data: { sessionId: 'session_x' } });
  });

  it('answers interaction.prompt/.continue/.complete sent by a client with -32601', async () => {
    const conn = testServer().connect();
    for (const method of ['interaction.prompt', 'interaction.continue', 'interaction.complete']) {
      expect((await conn.error(method, { sessionId: 's' })).code).toBe(-32601);
    }
  });
});

describe('interaction.start', () => {
  it.each([
    ['no params', undefined],
    ['no toolName', {}],
    ['a numeric toolName', { toolName: 7 }],
    ['a negative timeout', { toolName: 'booking', timeout: -5 }],
    ['a fractional timeout', { toolName: 'booking', timeout: 1.5 }],
    ['a string timeout', { toolName: 'booking', timeout: '1000' }],
    ['initialParams that are not an object', { toolName: 'booking', initialParams: [1] }],
    ['context that is not an object', { toolName: 'booking', context: 'x' }],
  ])('refuses %s with -32602', async (_, params) => {
    const server = testServer();
    expect((await server.connect().error('interaction.start', params)).code).toBe(-32602);
    expect(server.ext.engine.sessionCount).toBe(0);
  });

  it('refuses an unknown tool with -32602 and creates no session', async () => {
    const server = testServer();
    const error = await server.connect().error('interaction.start', { toolName: 'nope' });
    expect(error.code).toBe(-32602);
    expect(error.message).toContain('nope');
    expect(server.ext.engine.sessionCount).toBe(0);
  });

  it('answers -32007 NOT_INTERACTIVE for a tool that exists but is not interactive', async () => {
    const server = testServer({ plainTools: ['echo'] });
    const error = await server.connect().error('interaction.start', { toolName: 'echo' });
    expect(error.toJSON()).toMatchObject({ code: -32007, data: { toolName: 'echo' } });
    expect(server.ext.engine.sessionCount).toBe(0);
  });

  it('reports idle with the initial prompt under the C-03 idle reading, and the prompt is still current', async () => {
    const server = testServer({ initialPromptState: 'idle' });
    const conn = server.connect();
    const result = await conn.call('interaction.start', { toolName: 'booking' });
    expect(result.state).toBe('idle');
    expect(await answer(server, conn, result.sessionId as string, 'Rome')).toMatchObject({ accepted: true });
  });

  it('gives every session a new unpredictable id (FLOW-SEC-2, FLOW-SEC-9)', async () => {
    const conn = testServer().connect();
    const ids: string[] = [];
    for (let i = 0; i < 64; i++) ids.push(await start(conn));
    const assessment = assessSessionIds(ids);
    expect(assessment.findings).toEqual([]);
    expect(assessment.unpredictable).toBe(true);
    expect(assessment.recommendedEntropy).toBe(true);
  });
});

interface RetryCase {
  type: string;
  prompt: Record<string, unknown>;
  bad: unknown;
  good: unknown;
  suggestion?: string;
}

const RETRY_CASES: RetryCase[] = [
  { type: 'text (required)', prompt: { type: 'text', message: 'Name?', validation: { required: true } }, bad: '', good: 'Al' },
  { type: 'text (pattern)', prompt: { type: 'text', message: 'Code?', validation: { pattern: '^[a-z]+$' } }, bad: 'ABC', good: 'abc', suggestion: 'Match the pattern ^[a-z]+$' },
  { type: 'text (length)', prompt: { type: 'text', message: 'Pin?', validation: { min: 4, max: 4 } }, bad: '123', good: '1234', suggestion: 'Enter at least 4 characters' },
  {
    type: 'choice',
    prompt: { type: 'choice', message: 'Pick', choices: [{ value: 'a', label: 'A' }, { value: 'b', label: 'B' }] },
    bad: 'c',
    good: 'b',
    suggestion: 'Choose one of: "a", "b"',
  },
  { type: 'confirm', prompt: { type: 'confirm', message: 'Sure?' }, bad: 'yes', good: false },
  { type: 'number', prompt: { type: 'number', message: 'Amount?', validation: { min: 0, max: 1000 } }, bad: 1001, good: 1000 },
  { type: 'number (not a number)', prompt: { type: 'number', message: 'Amount?' }, bad: '12', good: 12, suggestion: 'Enter a number' },
  { type: 'date', prompt: { type: 'date', message: 'When?', validation: { required: true } }, bad: '2024-02-30', good: '2024-02-29', suggestion: 'Use YYYY-MM-DD' },
  {
    type: 'file',
    prompt: { type: 'file', message: 'Upload', validation: { required: true, accept: ['.csv'], maxSize: 10 } },
    bad: { name: 'data.csv', size: 11 },
    good: { name: 'data.csv', size: 10 },
    suggestion: 'Send a file of at most 10 bytes',
  },
  { type: 'custom', prompt: { type: 'custom', message: 'Anything', validation: { required: true } }, bad: null, good: { any: ['thing'] } },
];

describe('validation retry (000 §Example: Validation Retry)', () => {
  it.each(RETRY_CASES)('$type: rejects, keeps the session, re-prompts with the error, then accepts', async ({ prompt, bad, good, suggestion }) => {
    const server = testServer({ wizards: [oneStep(prompt)] });
    const conn = server.connect();
    const sessionId = await start(conn, 'ask');
    const before = await conn.call('interaction.getState', { sessionId });

    const rejected = await answer(server, conn, sessionId, bad);
    expect(rejected.accepted).toBe(false);
    const validation = rejected.validation as { valid: boolean; error: string; suggestion?: string };
    expect(validation.valid).toBe(false);
    expect(validation.error.length).toBeGreaterThan(0);
    if (suggestion !== undefined) expect(validation.suggestion).toBe(suggestion);

    // FLOW-VALID-10: nothing changed but the activity time.
    const after = await conn.call('interaction.getState', { sessionId });
    expect({ ...after, metadata: undefined }).toEqual({ ...before, metadata: undefined });
    // FLOW-RESPOND-4 reading 1: a new interaction.prompt carrying the error.
    const reprompts = conn.requests('interaction.prompt', sessionId);
    expect(reprompts).toHaveLength(1);
    expect(reprompts[0]?.prompt).toEqual({ ...prompt, error: validation.error });

    expect(await answer(server, conn, sessionId, good)).toEqual({ accepted: true, validation: { valid: true } });
    expect(conn.requests('interaction.complete', sessionId)[0]?.result).toEqual({ success: true, data: { answer: good } });
    expect(conn.problems).toEqual([]);
  });

  it('answers a rejected value with -32004 under the C-15 error reading', async () => {
    const server = testServer({ wizards: [oneStep({ type: 'number', message: 'n?' })], rejectWithError: true });
    const conn = server.connect();
    const sessionId = await start(conn, 'ask');
    const error = await conn.error('interaction.respond', { sessionId, response: { value: 'x' } });
    expect(error.toJSON()).toMatchObject({ code: -32004, data: { sessionId, validation: { valid: false, error: 'Expected a number' } } });
    expect(await answer(server, conn, sessionId, 3)).toMatchObject({ accepted: true });
  });

  it('keeps the current prompt without a re-prompt when reprompt is off', async () => {
    const server = testServer({ wizards: [oneStep({ type: 'confirm', message: 'ok?' })], reprompt: false });
    const conn = server.connect();
    const sessionId = await start(conn, 'ask');
    expect((await answer(server, conn, sessionId, 1)).accepted).toBe(false);
    expect(conn.requests('interaction.prompt')).toEqual([]);
    expect((await conn.call('interaction.getState', { sessionId })).currentPrompt).toEqual({ type: 'confirm', message: 'ok?' });
    expect((await answer(server, conn, sessionId, true)).accepted).toBe(true);
  });
});

describe('state machine errors', () => {
  it('answers a request naming an unknown session with -32001 and data.sessionId, whatever the method', async () => {
    const conn = testServer().connect();
    for (const [method, params] of [
      ['interaction.getState', { sessionId: 'session_nope' }],
      ['interaction.cancel', { sessionId: 'session_nope' }],
      ['interaction.respond', { sessionId: 'session_nope', response: { value: 1 } }],
    ] as const) {
      const error = await conn.error(method, params);
      expect(error.toJSON()).toEqual({ code: -32001, message: 'Session not found: session_nope', data: { sessionId: 'session_nope' } });
    }
  });

  it('answers interaction.respond without response.value with -32602', async () => {
    const conn = testServer().connect();
    const sessionId = await start(conn);
    for (const params of [{ sessionId }, { sessionId, response: {} }, { sessionId, response: 'x' }, { sessionId, response: { value: 1, timestamp: 'now' } }]) {
      expect((await conn.error('interaction.respond', params)).code).toBe(-32602);
    }
  });

  it('answers interaction.respond on a completed session with -32003 and on a cancelled one with -32006', async () => {
    const server = testServer({ wizards: [oneStep({ type: 'confirm', message: 'ok?' })] });
    const conn = server.connect();
    const done = await start(conn, 'ask');
    await answer(server, conn, done, true);
    expect((await conn.error('interaction.respond', { sessionId: done, response: { value: true } })).toJSON()).toMatchObject({
      code: -32003,
      data: { sessionId: done },
    });
    const cancelled = await start(conn, 'ask');
    await conn.call('interaction.cancel', { sessionId: cancelled });
    expect((await conn.error('interaction.respond', { sessionId: cancelled, response: { value: true } })).toJSON()).toMatchObject({
      code: -32006,
      data: { sessionId: cancelled },
    });
  });

  it('answers interaction.respond while the session is not waiting for the user with -32003', async () => {
    const server = testServer();
    const conn = server.connect();
    const sessionId = await start(conn, 'registration');
    // Before the engine sent the first prompt the session is idle or active.
    expect((await conn.error('interaction.respond', { sessionId, response: { value: 'x' } })).code).toBe(-32003);
    await server.settle();
    expect((await answer(server, conn, sessionId, 'Bob')).accepted).toBe(true);
  });

  it('moves a session to error when the client refuses its prompt', async () => {
    const server = testServer();
    const conn = server.connect();
    conn.answer = () => {
      throw new RpcError(-32001, 'Session not found', { sessionId: 'x' });
    };
    const sessionId = await start(conn, 'registration');
    await server.settle();
    expect((await conn.call('interaction.getState', { sessionId })).state).toBe('error');
  });
});

describe('interaction.cancel', () => {
  it('cancels a waiting session once, then answers -32006; a completed session answers -32003', async () => {
    const server = testServer({ wizards: [oneStep({ type: 'confirm', message: 'ok?' })] });
    const conn = server.connect();
    const sessionId = await start(conn, 'ask');
    expect(await conn.call('interaction.cancel', { sessionId, reason: 'User cancelled' })).toEqual({ cancelled: true });
    const state = await conn.call('interaction.getState', { sessionId });
    expect(state.state).toBe('cancelled');
    expect(state).not.toHaveProperty('currentPrompt');
    expect((await conn.error('interaction.cancel', { sessionId })).toJSON()).toMatchObject({ code: -32006, data: { sessionId } });
    expect((await conn.error('interaction.cancel', { sessionId, reason: 5 })).code).toBe(-32602);

    const done = await start(conn, 'ask');
    await answer(server, conn, done, true);
    expect((await conn.error('interaction.cancel', { sessionId: done })).toJSON()).toMatchObject({ code: -32003, data: { sessionId: done } });
    expect((await conn.call('interaction.getState', { sessionId: done })).state).toBe('completed');
  });

  it('sends nothing more for a session cancelled while the engine was processing (FLOW-CANCEL-5)', async () => {
    const server = testServer();
    const conn = server.connect();
    const sessionId = await start(conn);
    await conn.call('interaction.respond', { sessionId, response: { value: 'Paris' } });
    await conn.call('interaction.cancel', { sessionId });
    await server.settle();
    expect(conn.sent.filter((m) => m.params.sessionId === sessionId)).toEqual([]);
    expect((await conn.call('interaction.getState', { sessionId })).state).toBe('cancelled');
  });
});

describe('interaction.getState', () => {
  it('changes nothing, and lastActivityAt advances with interaction.respond', async () => {
    const server = testServer();
    const conn = server.connect();
    const sessionId = await start(conn);
    const first = await conn.call('interaction.getState', { sessionId });
    server.clock.advance(1000);
    expect(await conn.call('interaction.getState', { sessionId })).toEqual(first);
    await answer(server, conn, sessionId, 'Rome');
    const later = await conn.call('interaction.getState', { sessionId });
    const metadata = later.metadata as { createdAt: number; lastActivityAt: number; toolName: string };
    expect(metadata.toolName).toBe('booking');
    expect(metadata.lastActivityAt).toBe(metadata.createdAt + 1000);
    expect(later.history).toEqual([
      {
        turnId: 0,
        prompt: first.currentPrompt,
        response: { value: 'Rome', timestamp: server.clock.now() },
        timestamp: server.clock.now(),
      },
    ]);
  });
});

describe('isolation', () => {
  it("hides a session from other connections, and one session's data from another", async () => {
    const server = testServer();
    const a = server.connect();
    const b = server.connect();
    const mine = await start(a);
    await answer(server, a, mine, 'Secretville');
    expect((await b.error('interaction.getState', { sessionId: mine })).code).toBe(-32001);
    expect((await b.error('interaction.respond', { sessionId: mine, response: { value: 'x' } })).code).toBe(-32001);
    const theirs = await start(b);
    const state = await b.call('interaction.getState', { sessionId: theirs });
    expect(JSON.stringify(state)).not.toContain('Secretville');
    expect(b.sent.filter((m) => m.params.sessionId === mine)).toEqual([]);
  });

  it('lets other connections use a session when bindSessionsToConnection is off (FLOW-SEC-4 reading 2)', async () => {
    const server = testServer({ bindSessionsToConnection: false });
    const sessionId = await start(server.connect());
    expect((await server.connect().call('interaction.getState', { sessionId })).state).toBe('waiting_user');
  });

  it('drops the sessions of a connection that ended', async () => {
    const server = testServer();
    const conn = server.connect();
    await start(conn);
    conn.end();
    expect(server.ext.engine.sessionCount).toBe(0);
  });
});

describe('timeouts', () => {
  async function timed(timeout: number): Promise<{ server: TestServer; conn: FakeConnection; sessionId: string }> {
    const server = testServer({ retentionMs: 5000 });
    const conn = server.connect();
    const sessionId = await start(conn, 'booking', { timeout });
    return { server, conn, sessionId };
  }

  it('warns before expiry, then answers -32002, then -32001 once cleaned up', async () => {
    const { server, conn, sessionId } = await timed(1000);
    server.clock.advance(799);
    expect(conn.logs).toEqual([]);
    server.clock.advance(1);
    expect(conn.logs).toEqual([
      { level: 'warning', logger: 'mcp-flow', data: { sessionId, expiresAt: expect.any(Number), message: expect.stringContaining(sessionId) } },
    ]);
    server.clock.advance(200);
    expect((await conn.error('interaction.getState', { sessionId })).toJSON()).toEqual({
      code: -32002,
      message: `Session expired: ${sessionId}`,
      data: { sessionId },
    });
    expect((await conn.error('interaction.respond', { sessionId, response: { value: 'x' } })).code).toBe(-32002);
    server.clock.advance(5000);
    expect((await conn.error('interaction.getState', { sessionId })).code).toBe(-32001);
  });

  it('counts the timeout from the last activity', async () => {
    const { server, conn, sessionId } = await timed(1000);
    server.clock.advance(900);
    await answer(server, conn, sessionId, 'Rome');
    server.clock.advance(900);
    expect((await conn.call('interaction.getState', { sessionId })).state).toBe('waiting_user');
    server.clock.advance(100);
    expect((await conn.error('interaction.getState', { sessionId })).code).toBe(-32002);
  });

  it('expires a session at the timeout even without timers having run', async () => {
    const server = testServer({ defaultTimeoutMs: 50 });
    const conn = server.connect();
    const sessionId = await start(conn, 'registration');
    await server.settle();
    expect((await conn.call('interaction.getState', { sessionId })).state).toBe('waiting_user');
    server.clock.advance(50);
    expect((await conn.error('interaction.getState', { sessionId })).code).toBe(-32002);
  });

  it('ends a session at the maximum duration however active it is', async () => {
    const server = testServer({ limits: { maxDurationMs: 1500 } });
    const conn = server.connect();
    const sessionId = await start(conn, 'booking', { timeout: 1000 });
    server.clock.advance(800);
    await answer(server, conn, sessionId, 'Rome');
    server.clock.advance(800);
    expect((await conn.error('interaction.getState', { sessionId })).code).toBe(-32002);
  });
});

describe('limits (FLOW-RATE-5)', () => {
  it('answers requests over the per-session rate with an error while other sessions keep working', async () => {
    const server = testServer({ limits: { requestsPerWindow: 3, windowMs: 1000 } });
    const conn = server.connect();
    const busy = await start(conn);
    const calm = await start(conn);
    for (let i = 0; i < 3; i++) await conn.call('interaction.getState', { sessionId: busy });
    expect((await conn.error('interaction.getState', { sessionId: busy })).toJSON()).toMatchObject({
      code: -32000,
      data: { sessionId: busy, limit: 'requestsPerWindow', max: 3 },
    });
    expect((await conn.call('interaction.getState', { sessionId: calm })).state).toBe('waiting_user');
    server.clock.advance(1000);
    expect((await conn.call('interaction.getState', { sessionId: busy })).state).toBe('waiting_user');
  });

  it('stops a session at its prompt limit with an error', async () => {
    const server = testServer({ limits: { maxPrompts: 2 } });
    const conn = server.connect();
    const sessionId = await start(conn);
    expect((await answer(server, conn, sessionId, '1')).accepted).toBe(false);
    const error = await conn.error('interaction.respond', { sessionId, response: { value: '2' } });
    expect(error.toJSON()).toMatchObject({ code: -32000, data: { sessionId, limit: 'maxPrompts', max: 2 } });
    expect((await conn.call('interaction.getState', { sessionId })).state).toBe('error');
  });

  it('limits live sessions per connection', async () => {
    const server = testServer({ limits: { maxSessionsPerConnection: 2 } });
    const conn = server.connect();
    const first = await start(conn);
    await start(conn);
    expect((await conn.error('interaction.start', { toolName: 'booking' })).toJSON()).toMatchObject({ code: -32000, data: { limit: 'maxSessionsPerConnection' } });
    expect(await start(server.connect())).toMatch(/^session_/);
    await conn.call('interaction.cancel', { sessionId: first });
    expect(await start(conn)).toMatch(/^session_/);
  });
});
