// The MCP Flow fault catalog: every fault names a server MUST of the catalog (or a SHOULD whose
// recommended reading it leaves for no accepted one), and switching it on makes a small check of
// that requirement fail while the same check passes on the clean engine.
import { describe, expect, it } from 'vitest';
import { findIllegalObservation, INTERACTION_STATES, type InteractionState } from '../../../../src/protocol/flow-session.js';
import { requirements } from '../../../../src/protocol/requirements.js';
import { assessSessionIds } from '../../../../src/protocol/session-ids.js';
import { RpcError } from '../../../../src/peer/server/extension.js';
import { CORE_FAULTS } from '../../../../src/peer/server/faults.js';
import { canonicalJson, FLOW_FAULTS, parseWizard, type FlowExtensionOptions, type Wizard } from '../../../../src/peer/server/flow/index.js';
import { answer, testServer, type FakeConnection, type TestServer } from './harness.js';

const secret = 'fault-test-secret-of-at-least-32-bytes';

function oneStep(prompt: Record<string, unknown>): Wizard {
  return parseWizard({
    name: 'ask',
    description: 'asks one thing',
    initialPrompt: true,
    steps: [{ id: 'answer', prompt }],
    result: { data: { answer: '{{data.answer}}' } },
  });
}

const CONFIRM = oneStep({ type: 'confirm', message: 'ok?' });
const NUMBER = oneStep({ type: 'number', message: 'n?', defaultValue: 1, validation: { min: 0, max: 10 } });
const CHOICE = oneStep({ type: 'choice', message: 'pick', choices: [{ value: 'a', label: 'A' }, { value: 'b', label: 'B' }] });

type Outcome = number | 'ok';

async function outcome(conn: FakeConnection, method: string, params: unknown): Promise<Outcome> {
  try {
    await conn.call(method, params);
    return 'ok';
  } catch (error) {
    if (error instanceof RpcError) return error.code;
    throw error;
  }
}

async function start(conn: FakeConnection, toolName = 'booking', extra: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
  return conn.call('interaction.start', { toolName, ...extra });
}

async function id(conn: FakeConnection, toolName = 'booking', extra: Record<string, unknown> = {}): Promise<string> {
  return (await start(conn, toolName, extra)).sessionId as string;
}

/** Whether the value is accepted (an error answer counts as not accepted). */
async function accepted(server: TestServer, conn: FakeConnection, sessionId: string, value: unknown): Promise<boolean> {
  try {
    return (await answer(server, conn, sessionId, value)).accepted === true;
  } catch (error) {
    if (error instanceof RpcError) return false;
    throw error;
  }
}

interface Scenario {
  options?: FlowExtensionOptions;
  /** Whether the requirement holds, as observed from outside. */
  holds(server: TestServer, conn: FakeConnection): Promise<boolean>;
}

const SCENARIOS: Record<string, Scenario> = {
  'no-interactive-capability': {
    holds: async (server, conn) =>
      (await conn.call('capabilities')).interactive === true || JSON.stringify(server.ext.capabilities?.(conn.context)).includes('interactive'),
  },
  'capabilities-interactive-not-boolean': { holds: async (_, conn) => typeof (await conn.call('capabilities')).interactive === 'boolean' },
  'feature-flag-not-boolean': {
    holds: async (_, conn) => Object.values((await conn.call('capabilities')).features as object).every((v) => typeof v === 'boolean'),
  },
  'capabilities-method-missing': { holds: async (_, conn) => (await outcome(conn, 'capabilities', {})) === 'ok' },
  'serve-client-methods': { holds: async (_, conn) => (await outcome(conn, 'interaction.prompt', { sessionId: 's', prompt: {} })) === -32601 },
  'not-interactive-served': {
    options: { interactive: false },
    holds: async (_, conn) => (await outcome(conn, 'interaction.start', { toolName: 'booking' })) !== 'ok',
  },
  'uncompilable-pattern': {
    holds: async (_, conn) => {
      const pattern = ((await start(conn)).initialPrompt as { validation: { pattern: string } }).validation.pattern;
      try {
        new RegExp(pattern, 'u');
        return true;
      } catch {
        return false;
      }
    },
  },
  'continue-without-session-id': {
    holds: async (server, conn) => {
      const sessionId = await id(conn);
      for (const value of ['Lisbon', '2030-05-17', 2, 'economy']) await answer(server, conn, sessionId, value);
      const continues = conn.requests('interaction.continue');
      return continues.length > 0 && continues.every((c) => typeof c.sessionId === 'string');
    },
  },
  'prompt-while-waiting': {
    holds: async (server, conn) => {
      await id(conn);
      await server.settle();
      return conn.requests('interaction.prompt').length === 0;
    },
  },
  'stay-waiting-after-accept': {
    options: { wizards: [CONFIRM] },
    holds: async (server, conn) => {
      const sessionId = await id(conn, 'ask');
      await answer(server, conn, sessionId, true);
      return (await conn.call('interaction.getState', { sessionId })).state !== 'waiting_user';
    },
  },
  'getstate-unknown-session-invalid-params': { holds: async (_, conn) => (await outcome(conn, 'interaction.getState', { sessionId: 'session_gone' })) === -32001 },
  'cancel-unknown-session-invalid-params': { holds: async (_, conn) => (await outcome(conn, 'interaction.cancel', { sessionId: 'session_gone' })) === -32001 },
  'start-without-state': { holds: async (_, conn) => typeof (await start(conn)).state === 'string' },
  'start-without-tool-name-served': { holds: async (_, conn) => (await outcome(conn, 'interaction.start', {})) === -32602 },
  'invalid-timeout-internal-error': { holds: async (_, conn) => (await outcome(conn, 'interaction.start', { toolName: 'booking', timeout: -1 })) === -32602 },
  'start-unknown-tool': {
    holds: async (server, conn) => (await outcome(conn, 'interaction.start', { toolName: 'nope' })) !== 'ok' && server.ext.engine.sessionCount === 0,
  },
  'initial-prompt-not-current': { holds: async (server, conn) => accepted(server, conn, await id(conn), 'Rome') },
  'reuse-session-id': {
    holds: async (_, conn) => {
      const first = await id(conn);
      await conn.call('interaction.cancel', { sessionId: first });
      return (await id(conn)) !== first;
    },
  },
  'no-first-prompt': {
    holds: async (server, conn) => {
      const sessionId = await id(conn, 'registration');
      await server.settle();
      return conn.requests('interaction.prompt', sessionId).length === 1;
    },
  },
  'prompt-as-notification': {
    holds: async (server, conn) => {
      await id(conn, 'registration');
      await server.settle();
      return conn.sent.filter((m) => m.method === 'interaction.prompt').every((m) => m.kind === 'request') && conn.sent.length === 1;
    },
  },
  'prompt-without-message': { holds: async (_, conn) => typeof ((await start(conn)).initialPrompt as { message?: unknown }).message === 'string' },
  'duplicate-choice-values': {
    options: { wizards: [CHOICE] },
    holds: async (_, conn) => {
      const choices = ((await start(conn, 'ask')).initialPrompt as { choices: { value: unknown }[] }).choices.map((c) => c.value);
      return new Set(choices).size === choices.length;
    },
  },
  'choice-without-label': {
    options: { wizards: [CHOICE] },
    holds: async (_, conn) => ((await start(conn, 'ask')).initialPrompt as { choices: { label?: unknown }[] }).choices.every((c) => typeof c.label === 'string'),
  },
  'validation-required-as-string': {
    holds: async (_, conn) => typeof ((await start(conn)).initialPrompt as { validation: { required: unknown } }).validation.required === 'boolean',
  },
  'progress-current-as-string': { holds: async (_, conn) => typeof ((await start(conn)).progress as { current: unknown }).current === 'number' },
  'inverted-bounds': {
    holds: async (_, conn) => {
      const rules = ((await start(conn)).initialPrompt as { validation: { min: number; max: number } }).validation;
      return rules.min <= rules.max;
    },
  },
  'default-wrong-type': {
    options: { wizards: [NUMBER] },
    holds: async (_, conn) => typeof ((await start(conn, 'ask')).initialPrompt as { defaultValue: unknown }).defaultValue === 'number',
  },
  'progress-beyond-total': {
    holds: async (_, conn) => {
      const progress = (await start(conn)).progress as { current: number; total: number };
      return progress.current <= progress.total;
    },
  },
  'continue-prompt-not-current': {
    holds: async (server, conn) => {
      const sessionId = await id(conn);
      for (const value of ['Lisbon', '2030-05-17', 2, 'economy']) await answer(server, conn, sessionId, value);
      return conn.requests('interaction.continue', sessionId).some((c) => c.nextPrompt !== undefined) && accepted(server, conn, sessionId, true);
    },
  },
  'accepted-marked-invalid': {
    holds: async (server, conn) => {
      const result = await answer(server, conn, await id(conn), 'Rome');
      return JSON.stringify(result) === JSON.stringify({ accepted: true, validation: { valid: true } });
    },
  },
  'rejection-without-error': {
    holds: async (server, conn) => {
      const result = await answer(server, conn, await id(conn), '');
      const error = (result.validation as { error?: unknown }).error;
      return typeof error === 'string' && error.length > 0;
    },
  },
  'drop-prompt-after-rejection': {
    holds: async (server, conn) => {
      const sessionId = await id(conn);
      await answer(server, conn, sessionId, '');
      return accepted(server, conn, sessionId, 'Rome');
    },
  },
  'respond-after-complete-accepted': {
    options: { wizards: [CONFIRM] },
    holds: async (server, conn) => {
      const sessionId = await id(conn, 'ask');
      await answer(server, conn, sessionId, true);
      return (await outcome(conn, 'interaction.respond', { sessionId, response: { value: true } })) === -32003;
    },
  },
  'respond-after-cancel-accepted': {
    holds: async (_, conn) => {
      const sessionId = await id(conn);
      await conn.call('interaction.cancel', { sessionId });
      return (await outcome(conn, 'interaction.respond', { sessionId, response: { value: 'Rome' } })) === -32006;
    },
  },
  'accept-missing-response': { holds: async (_, conn) => (await outcome(conn, 'interaction.respond', { sessionId: await id(conn) })) === -32602 },
  'skip-validation': { holds: async (server, conn) => !(await accepted(server, conn, await id(conn), 42)) },
  'ignore-required': { holds: async (server, conn) => !(await accepted(server, conn, await id(conn), '')) },
  'ignore-pattern': { holds: async (server, conn) => !(await accepted(server, conn, await id(conn), '12345')) },
  'ignore-text-length': { holds: async (server, conn) => !(await accepted(server, conn, await id(conn), 'A')) },
  'ignore-number-range': { options: { wizards: [NUMBER] }, holds: async (server, conn) => !(await accepted(server, conn, await id(conn, 'ask'), 11)) },
  'accept-non-number': { options: { wizards: [NUMBER] }, holds: async (server, conn) => !(await accepted(server, conn, await id(conn, 'ask'), 'abc')) },
  'accept-unlisted-choice': { options: { wizards: [CHOICE] }, holds: async (server, conn) => !(await accepted(server, conn, await id(conn, 'ask'), 'z')) },
  'accept-non-boolean-confirm': {
    options: { wizards: [CONFIRM] },
    holds: async (server, conn) => !(await accepted(server, conn, await id(conn, 'ask'), 'yes')),
  },
  'record-rejected-answer': {
    holds: async (server, conn) => {
      const sessionId = await id(conn);
      await answer(server, conn, sessionId, '');
      return JSON.stringify((await conn.call('interaction.getState', { sessionId })).accumulatedData) === '{}';
    },
  },
  'unknown-state-name': {
    holds: async (_, conn) => {
      const sessionId = await id(conn);
      return (INTERACTION_STATES as readonly unknown[]).includes((await conn.call('interaction.getState', { sessionId })).state);
    },
  },
  'state-idle-while-waiting': {
    holds: async (_, conn) => {
      const started = await start(conn);
      const later = await conn.call('interaction.getState', { sessionId: started.sessionId });
      return findIllegalObservation([started.state, later.state] as InteractionState[]) === undefined;
    },
  },
  'complete-twice': {
    options: { wizards: [CONFIRM] },
    holds: async (server, conn) => {
      await answer(server, conn, await id(conn, 'ask'), true);
      return conn.requests('interaction.complete').length === 1;
    },
  },
  'complete-without-success': {
    options: { wizards: [CONFIRM] },
    holds: async (server, conn) => {
      await answer(server, conn, await id(conn, 'ask'), true);
      return typeof (conn.requests('interaction.complete')[0]?.result as { success?: unknown }).success === 'boolean';
    },
  },
  'prompt-after-complete': {
    options: { wizards: [CONFIRM] },
    holds: async (server, conn) => {
      await answer(server, conn, await id(conn, 'ask'), true);
      return conn.sent.at(-1)?.method === 'interaction.complete';
    },
  },
  'completed-session-reopened': {
    options: { wizards: [CONFIRM] },
    holds: async (server, conn) => {
      const sessionId = await id(conn, 'ask');
      await answer(server, conn, sessionId, true);
      const refused = (await outcome(conn, 'interaction.respond', { sessionId, response: { value: true } })) === -32003;
      return refused && (await conn.call('interaction.getState', { sessionId })).state === 'completed';
    },
  },
  'invalid-transition-as-invalid-params': {
    options: { wizards: [CONFIRM] },
    holds: async (server, conn) => {
      const sessionId = await id(conn, 'ask');
      await answer(server, conn, sessionId, true);
      return (await outcome(conn, 'interaction.respond', { sessionId, response: { value: true } })) === -32003;
    },
  },
  'not-interactive-as-validation-failed': {
    options: { plainTools: ['echo'] },
    holds: async (_, conn) => (await outcome(conn, 'interaction.start', { toolName: 'echo' })) === -32007,
  },
  'missing-metadata': {
    holds: async (_, conn) => ((await conn.call('interaction.getState', { sessionId: await id(conn) })).metadata as { toolName?: string }).toolName === 'booking',
  },
  'missing-history': {
    holds: async (server, conn) => {
      const sessionId = await id(conn);
      await answer(server, conn, sessionId, 'Rome');
      return ((await conn.call('interaction.getState', { sessionId })).history as unknown[]).length === 1;
    },
  },
  'current-prompt-after-complete': {
    options: { wizards: [CONFIRM] },
    holds: async (server, conn) => {
      const sessionId = await id(conn, 'ask');
      await answer(server, conn, sessionId, true);
      const state = await conn.call('interaction.getState', { sessionId });
      return state.currentPrompt === undefined || state.currentPrompt === null;
    },
  },
  'getstate-mutates': {
    holds: async (_, conn) => {
      const sessionId = await id(conn);
      const first = await conn.call('interaction.getState', { sessionId });
      return JSON.stringify(await conn.call('interaction.getState', { sessionId })) === JSON.stringify(first);
    },
  },
  'cancel-ignored': {
    holds: async (_, conn) => {
      const sessionId = await id(conn);
      await conn.call('interaction.cancel', { sessionId });
      return (await conn.call('interaction.getState', { sessionId })).state === 'cancelled';
    },
  },
  'cancel-twice-succeeds': {
    holds: async (_, conn) => {
      const sessionId = await id(conn);
      await conn.call('interaction.cancel', { sessionId });
      return (await outcome(conn, 'interaction.cancel', { sessionId })) === -32006;
    },
  },
  'cancel-completed-claims-cancelled': {
    options: { wizards: [CONFIRM] },
    holds: async (server, conn) => {
      const sessionId = await id(conn, 'ask');
      await answer(server, conn, sessionId, true);
      const refused = (await outcome(conn, 'interaction.cancel', { sessionId })) !== 'ok';
      return refused && (await conn.call('interaction.getState', { sessionId })).state === 'completed';
    },
  },
  'prompt-after-cancel': {
    holds: async (server, conn) => {
      const sessionId = await id(conn);
      await conn.call('interaction.cancel', { sessionId });
      await server.settle();
      return conn.sent.length === 0;
    },
  },
  'no-expiry': {
    holds: async (server, conn) => {
      const sessionId = await id(conn, 'booking', { timeout: 1000 });
      server.clock.advance(1000);
      return (await outcome(conn, 'interaction.getState', { sessionId })) === -32002;
    },
  },
  'missing-error-session-id': {
    holds: async (_, conn) => {
      const error = await conn.error('interaction.getState', { sessionId: 'session_gone' });
      return (error.data as { sessionId?: string } | undefined)?.sessionId === 'session_gone';
    },
  },
  'wrong-error-code-session-not-found': { holds: async (_, conn) => (await outcome(conn, 'interaction.getState', { sessionId: 'session_gone' })) === -32001 },
  'leak-foreign-session': {
    holds: async (server, conn) => {
      const first = await id(conn);
      await answer(server, conn, first, 'Secretville');
      const second = await id(conn);
      return !JSON.stringify(await conn.call('interaction.getState', { sessionId: second })).includes('Secretville');
    },
  },
  'sequential-session-ids': {
    holds: async (_, conn) => {
      const ids: string[] = [];
      for (let i = 0; i < 16; i++) ids.push(await id(conn));
      return assessSessionIds(ids).unpredictable;
    },
  },
  'accept-tampered-token': {
    options: { stateless: { secret } },
    holds: async (_, conn) => {
      const token = await id(conn);
      const decoded = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { state: { accumulatedData: object } };
      decoded.state.accumulatedData = { destination: 'Forged' };
      const tampered = Buffer.from(canonicalJson(decoded), 'utf8').toString('base64url');
      return (await outcome(conn, 'interaction.getState', { sessionId: tampered })) === -32001;
    },
  },
  'reject-own-token': {
    options: { stateless: { secret } },
    holds: async (_, conn) => (await outcome(conn, 'interaction.getState', { sessionId: await id(conn) })) === 'ok',
  },
  'rate-limit-silence': {
    options: { limits: { requestsPerWindow: 1 } },
    holds: async (server, conn) => {
      const sessionId = await id(conn);
      await conn.call('interaction.getState', { sessionId });
      const abort = new AbortController();
      let answered = false;
      const pending = conn.call('interaction.getState', { sessionId }, abort.signal).then(
        () => (answered = true),
        () => (answered = true),
      );
      await server.settle();
      for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
      const result = answered;
      abort.abort();
      await pending;
      return result;
    },
  },
  'capabilities-version-wrong': { holds: async (_, conn) => (await conn.call('capabilities')).version === '0.1.0' },
  'error-message-without-session': {
    holds: async (_, conn) => {
      try {
        await conn.call('interaction.getState', { sessionId: 'session_gone' });
        return false;
      } catch (error) {
        return error instanceof RpcError && error.message.includes('session_gone');
      }
    },
  },
  'date-bounds-not-full-date': {
    holds: async (server, conn) => {
      await answer(server, conn, await id(conn), 'Lisbon');
      const date = datePrompt(conn);
      return [date.validation?.min, date.validation?.max].every((bound) => typeof bound === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(bound));
    },
  },
  'initial-prompt-state-active': { holds: async (_, conn) => (await start(conn)).state === 'waiting_user' },
  'last-activity-frozen': {
    holds: async (server, conn) => {
      const sessionId = await id(conn);
      server.clock.advance(1000);
      await answer(server, conn, sessionId, 'Lisbon');
      const metadata = (await conn.call('interaction.getState', { sessionId })).metadata as { createdAt: number; lastActivityAt: number };
      return metadata.lastActivityAt > metadata.createdAt;
    },
  },
  'expired-token-not-found': {
    options: { stateless: { secret } },
    holds: async (server, conn) => {
      const sessionId = await id(conn, 'booking', { timeout: 1000 });
      server.clock.advance(1000);
      return (await outcome(conn, 'interaction.getState', { sessionId })) === -32002;
    },
  },
  'start-timeout-ignored': {
    holds: async (server, conn) => {
      const sessionId = await id(conn, 'booking', { timeout: 1000 });
      server.clock.advance(1000);
      return (await outcome(conn, 'interaction.getState', { sessionId })) === -32002;
    },
  },
  'no-expiry-warning': {
    holds: async (server, conn) => {
      const sessionId = await id(conn, 'booking', { timeout: 1000 });
      server.clock.advance(900);
      return conn.logs.some((log) => JSON.stringify(log.data).includes(sessionId));
    },
  },
  'rejection-without-suggestion': {
    holds: async (server, conn) => {
      const sessionId = await id(conn);
      await answer(server, conn, sessionId, 'Lisbon');
      const rejected = await answer(server, conn, sessionId, '2000-01-01');
      return typeof (rejected.validation as { suggestion?: unknown }).suggestion === 'string';
    },
  },
  'accept-invalid-date': {
    holds: async (server, conn) => {
      const sessionId = await id(conn);
      await answer(server, conn, sessionId, 'Lisbon');
      return !(await accepted(server, conn, sessionId, '2031-02-30'));
    },
  },
  'sessions-shared-across-connections': {
    holds: async (server, conn) => {
      const context = { conversation: 'c-1' };
      const first = await id(conn, 'booking', { context });
      const other = server.connect({ checkSchemas: conn.checkSchemas });
      const second = await id(other, 'booking', { context });
      await answer(server, conn, first, 'Madrid');
      const state = await other.call('interaction.getState', { sessionId: second });
      return second !== first && !JSON.stringify(state).includes('Madrid');
    },
  },
  'short-session-ids': {
    holds: async (_, conn) => {
      const ids: string[] = [];
      for (let i = 0; i < 64; i++) ids.push(await id(conn));
      return assessSessionIds(ids).recommendedEntropy;
    },
  },
};

/** The date prompt the booking wizard sent (as interaction.prompt or as interaction.continue's nextPrompt). */
function datePrompt(conn: FakeConnection): { validation?: { min?: unknown; max?: unknown } } {
  const sent = [...conn.requests('interaction.prompt').map((p) => p.prompt), ...conn.requests('interaction.continue').map((c) => c.nextPrompt)];
  const date = sent.find((prompt) => (prompt as { type?: unknown } | undefined)?.type === 'date');
  if (date === undefined) throw new Error(`no date prompt was sent: ${JSON.stringify(sent)}`);
  return date as { validation?: { min?: unknown; max?: unknown } };
}

/** Faults whose observation needs a WebTransport session: probed in file-export-stream.test.ts. */
const WEBTRANSPORT_PROBED = ['export-inline-on-webtransport'];

describe('MCP Flow fault catalog', () => {
  const catalog = requirements();

  it('names each fault once, in kebab-case, distinct from the core faults', () => {
    const names = FLOW_FAULTS.map((f) => f.name);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name).toMatch(/^[a-z0-9]+(?:-[a-z0-9]+)*$/);
    const core = new Set(CORE_FAULTS.map((f) => f.name));
    expect(names.filter((n) => core.has(n))).toEqual([]);
  });

  it.each(FLOW_FAULTS.map((f) => [f.name, f.requirement] as const))('%s breaks %s, a server MUST or SHOULD of the catalog', (_, requirement) => {
    const entry = catalog.get(requirement);
    // The binding's rule for a Flow export file (WT-EXEC-10) is the engine's to keep.
    expect(['FLOW', 'WT']).toContain(entry.system);
    expect(['MUST', 'SHOULD']).toContain(entry.level);
    expect(['server', 'both']).toContain(entry.role);
  });

  it('has a scenario for every fault', () => {
    expect([...Object.keys(SCENARIOS), ...WEBTRANSPORT_PROBED].sort()).toEqual(FLOW_FAULTS.map((f) => f.name).sort());
  });

  it.each(FLOW_FAULTS.filter((f) => !WEBTRANSPORT_PROBED.includes(f.name)).map((f) => [f.name, f.requirement] as const))('%s: the %s check passes without the fault and fails with it', async (name) => {
    const scenario = SCENARIOS[name] as Scenario;
    const clean = testServer(scenario.options);
    expect(await scenario.holds(clean, clean.connect({ checkSchemas: false }))).toBe(true);
    const faulty = testServer(scenario.options, [name]);
    expect(await scenario.holds(faulty, faulty.connect())).toBe(false);
  });
});

describe('a fault breaks its own requirement, not a neighbour', () => {
  it('state-idle-while-waiting reports idle without a currentPrompt, so FLOW-STATE-3 still holds', async () => {
    const server = testServer({}, ['state-idle-while-waiting']);
    const conn = server.connect();
    const sessionId = await id(conn);
    const state = await conn.call('interaction.getState', { sessionId });
    expect(state.state).toBe('idle');
    expect(state).not.toHaveProperty('currentPrompt');
  });
});

describe('stay-waiting-after-accept breaks only the step out of waiting_user', () => {
  it('records the accepted answer in history (FLOW-STATE-2 holds) while the session stays waiting_user', async () => {
    const server = testServer({ wizards: [CONFIRM] }, ['stay-waiting-after-accept']);
    const conn = server.connect();
    const sessionId = await id(conn, 'ask');
    expect(await answer(server, conn, sessionId, true)).toEqual({ accepted: true, validation: { valid: true } });
    const state = await conn.call('interaction.getState', { sessionId });
    expect(state.state).toBe('waiting_user');
    expect(state.history).toMatchObject([{ turnId: 0, response: { value: true } }]);
    expect(state.accumulatedData).toEqual({ answer: true });
  });
});
