// The reference driver of docs/client-scenarios.md: runs the scenario named in MCP_FLOW_SCENARIO
// with the parameters in MCP_FLOW_CONTEXT against the URL given as the last argument, and reports
// an outcome whose exit code is 0 when every step succeeded.
import { scriptedAnswerer, answerList, type Answerer } from './answerer.js';
import { connectMockClient, type InitializeInfo, type MockClient, type MockClientOptions } from './client.js';
import type { MockClientTarget } from './connect.js';
import { ScenarioError } from './errors.js';
import { MOCK_CLIENT_FAULT as F } from './faults.js';

export const SCENARIOS = ['initialize', 'tools-call', 'interaction'] as const;
export type ScenarioName = (typeof SCENARIOS)[number];

/** Exit codes of a driver run. */
export const SCENARIO_EXIT = {
  /** Every step succeeded. */
  ok: 0,
  /** A step failed (an error answer, isError, a missing or failed stream, an interaction that did not complete...). */
  failed: 1,
  /** The scenario could not be run: unknown name, bad context, no URL. */
  usage: 2,
} as const;

export interface ScenarioEnv {
  url: string;
  scenario: string;
  /** MCP_FLOW_CONTEXT, parsed ({} when absent). */
  context?: unknown;
  /** WebTransport: MCP_FLOW_CERT_HASH. */
  certificateHash?: string;
  caFile?: string;
}

export interface ScenarioStep {
  name: string;
  ok: boolean;
  detail?: string;
}

export interface ScenarioOutcome {
  scenario: string;
  exitCode: number;
  ok: boolean;
  steps: ScenarioStep[];
  initialize?: InitializeInfo;
}

export interface ScenarioOptions extends MockClientOptions {
  /** Answers the interaction scenario's prompts instead of the context's `answers`. */
  answerer?: Answerer;
  /**
   * Opens the client the scenario runs on. Default connectMockClient; a test wraps it to build a
   * client that misbehaves in ways the fault catalog does not (garbage frames, an abrupt close).
   */
  connect?: (target: MockClientTarget, options: MockClientOptions) => Promise<MockClient>;
}

/** The scenario environment of a driver process: the URL is the last argument (docs/client-scenarios.md). */
export function scenarioFromEnvironment(argv: readonly string[], env: Record<string, string | undefined>): ScenarioEnv {
  const url = argv.at(-1);
  if (url === undefined || url === '') throw new ScenarioError('no server URL: the harness appends it as the last argument');
  const scenario = env['MCP_FLOW_SCENARIO'];
  if (scenario === undefined || scenario === '') throw new ScenarioError('MCP_FLOW_SCENARIO is not set');
  let context: unknown = {};
  const text = env['MCP_FLOW_CONTEXT'];
  if (text !== undefined && text !== '') {
    try {
      context = JSON.parse(text);
    } catch (error) {
      throw new ScenarioError(`MCP_FLOW_CONTEXT is not JSON: ${(error as Error).message}`);
    }
  }
  const certificateHash = env['MCP_FLOW_CERT_HASH'];
  return { url, scenario, context, ...(certificateHash ? { certificateHash } : {}) };
}

/** Runs one scenario; never throws for what the server or the environment did (the exit code says it). */
export async function runScenario(env: ScenarioEnv, options: ScenarioOptions = {}): Promise<ScenarioOutcome> {
  const outcome: ScenarioOutcome = { scenario: env.scenario, exitCode: SCENARIO_EXIT.ok, ok: true, steps: [] };
  const fail = (name: string, detail: string, exitCode: number = SCENARIO_EXIT.failed): ScenarioOutcome => {
    outcome.steps.push({ name, ok: false, detail });
    outcome.ok = false;
    if (outcome.exitCode === SCENARIO_EXIT.ok) outcome.exitCode = exitCode;
    return outcome;
  };
  let plan: (client: MockClient) => Promise<void>;
  try {
    plan = scenarioPlan(env, options, outcome, fail);
  } catch (error) {
    return fail('scenario', (error as Error).message, SCENARIO_EXIT.usage);
  }
  let client: MockClient;
  try {
    client = await (options.connect ?? connectMockClient)(
      { url: env.url, ...(env.certificateHash !== undefined ? { certificateHash: env.certificateHash } : {}), ...(env.caFile !== undefined ? { caFile: env.caFile } : {}) },
      options,
    );
  } catch (error) {
    return fail('connect', (error as Error).message);
  }
  try {
    outcome.initialize = await client.initialize();
    outcome.steps.push({ name: 'initialize', ok: true, detail: `protocol ${outcome.initialize.protocolVersion}, encoding ${outcome.initialize.encoding}` });
    await plan(client);
  } catch (error) {
    fail(outcome.initialize ? 'scenario' : 'initialize', (error as Error).message);
  } finally {
    await client.close();
  }
  return outcome;
}

type Fail = (name: string, detail: string) => ScenarioOutcome;

/** Checks the context and returns what the scenario does after initialize (ScenarioError for a bad one). */
function scenarioPlan(env: ScenarioEnv, options: ScenarioOptions, outcome: ScenarioOutcome, fail: Fail): (client: MockClient) => Promise<void> {
  const context = env.context ?? {};
  if (typeof context !== 'object' || context === null || Array.isArray(context)) throw new ScenarioError('MCP_FLOW_CONTEXT must be a JSON object');
  const c = context as Record<string, unknown>;
  switch (env.scenario) {
    case 'initialize':
      return async (client) => {
        const tools = await client.listTools();
        outcome.steps.push({ name: 'tools/list', ok: true, detail: `${tools.length} tools` });
        // FAULT undeclared-feature-called: prompts are listed whatever the server declared.
        if (client.faults.has(F.undeclaredFeatureCalled)) {
          const prompts = await client.listPrompts().then((list) => `${list.length} prompts`, (error: Error) => error.message);
          outcome.steps.push({ name: 'prompts/list', ok: true, detail: `${prompts} (fault)` });
        }
      };
    case 'tools-call': {
      if (typeof c['tool'] !== 'string') throw new ScenarioError('tools-call: the context needs a string "tool"');
      const args = c['arguments'] ?? {};
      if (typeof args !== 'object' || args === null || Array.isArray(args)) throw new ScenarioError('tools-call: "arguments" must be an object');
      const count = c['count'] ?? 1;
      if (!Number.isSafeInteger(count) || (count as number) < 0) throw new ScenarioError('tools-call: "count" must be a non-negative integer');
      const abortAfterMs = c['abortAfterMs'];
      if (abortAfterMs !== undefined && (!Number.isSafeInteger(abortAfterMs) || (abortAfterMs as number) < 0)) {
        throw new ScenarioError('tools-call: "abortAfterMs" must be a non-negative integer');
      }
      const tool = c['tool'];
      return async (client) => {
        for (let i = 1; i <= (count as number); i++) {
          if (client.shutdownReceived && !client.faults.has(F.requestsAfterShutdown)) {
            outcome.steps.push({ name: `tools/call ${i}`, ok: true, detail: 'not sent: the server sent $/shutdown' });
            return;
          }
          const abort = new AbortController();
          const timer = abortAfterMs === undefined ? undefined : setTimeout(() => abort.abort(), abortAfterMs as number);
          try {
            const call = await client.callTool(tool, args as Record<string, unknown>, { signal: abort.signal });
            if (call.ok) outcome.steps.push({ name: `tools/call ${i}`, ok: true, detail: call.streams.map((s) => `stream ${s.streamTag}: ${s.bytes} bytes`).join(', ') || undefined });
            else fail(`tools/call ${i}`, call.failures.join('; '));
            // FAULT stops-after-error: no further call after one answered with an error.
            if (call.error !== undefined && client.faults.has(F.stopsAfterError)) return;
          } finally {
            clearTimeout(timer);
          }
        }
      };
    }
    case 'interaction': {
      if (typeof c['tool'] !== 'string') throw new ScenarioError('interaction: the context needs a string "tool"');
      const initialParams = c['initialParams'];
      if (initialParams !== undefined && (typeof initialParams !== 'object' || initialParams === null || Array.isArray(initialParams))) {
        throw new ScenarioError('interaction: "initialParams" must be an object');
      }
      const answerer = options.answerer ?? scriptedAnswerer(answerList(c['answers'] ?? [], 'interaction: "answers"'));
      const tool = c['tool'];
      return async (client) => {
        const result = await client.interact(tool, initialParams as Record<string, unknown> | undefined, answerer);
        const detail = `${result.answers} answers, ${result.rejections} rejected${result.streams.length ? `, ${result.streams.map((s) => `stream ${s.streamTag}: ${s.bytes} bytes`).join(', ')}` : ''}`;
        if (result.status === 'completed') outcome.steps.push({ name: 'interaction', ok: true, detail });
        else fail('interaction', `${result.status}: ${result.failures.join('; ') || 'the session did not complete'} (${detail})`);
      };
    }
    default:
      throw new ScenarioError(`unknown scenario ${JSON.stringify(env.scenario)} (known: ${SCENARIOS.join(', ')})`);
  }
}
