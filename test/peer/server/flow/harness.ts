// A fake server core for the MCP Flow engine's tests: connections whose ServerSessionContext
// records every server-to-client message, answers them like a well-behaved client, and a fake
// clock whose timers run when the test advances it.
import { ActiveFaults, RpcError, type LogLevel, type RequestContext, type ServerSessionContext } from '../../../../src/peer/server/extension.js';
import { FLOW_FAULTS, flowExtension, type FlowClock, type FlowExtension, type FlowExtensionOptions } from '../../../../src/peer/server/flow/index.js';
import { SchemaRegistry } from '../../../../src/schema/index.js';

export class FakeClock implements FlowClock {
  #now = 1_700_000_000_000;
  #timers: { at: number; seq: number; callback: () => void }[] = [];
  #seq = 0;

  now(): number {
    return this.#now;
  }

  setTimer(ms: number, callback: () => void): () => void {
    const timer = { at: this.#now + ms, seq: this.#seq++, callback };
    this.#timers.push(timer);
    return () => {
      this.#timers = this.#timers.filter((t) => t !== timer);
    };
  }

  /** Moves time forward, running every timer that falls due, in order. */
  advance(ms: number): void {
    const end = this.#now + ms;
    for (;;) {
      const due = this.#timers.filter((t) => t.at <= end).sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (due === undefined) break;
      this.#timers = this.#timers.filter((t) => t !== due);
      this.#now = Math.max(this.#now, due.at);
      due.callback();
    }
    this.#now = end;
  }

  get pendingTimers(): number {
    return this.#timers.length;
  }
}

export interface SentMessage {
  kind: 'request' | 'notification';
  method: string;
  params: Record<string, unknown>;
}

export type ClientAnswer = (method: string, params: Record<string, unknown>) => unknown;

/** What a well-behaved client answers (FLOW-PROMPT-2, FLOW-PROMPT-12, FLOW-SM-8/9). */
export const goodClient: ClientAnswer = (method, params) => {
  if (method === 'interaction.complete') return { success: true, finalResult: (params.result as { data?: unknown }).data };
  return { acknowledged: true };
};

let schemas: SchemaRegistry | undefined;
function registry(): SchemaRegistry {
  schemas ??= SchemaRegistry.load();
  return schemas;
}

const SENT_SCHEMA: Record<string, string> = {
  'interaction.prompt': 'flow/interaction-prompt.request',
  'interaction.continue': 'flow/interaction-continue.request',
  'interaction.complete': 'flow/interaction-complete.request',
};

const RESULT_SCHEMA: Record<string, string> = {
  capabilities: 'flow/capabilities.result',
  'interaction.start': 'flow/interaction-start.result',
  'interaction.respond': 'flow/interaction-respond.result',
  'interaction.cancel': 'flow/interaction-cancel.result',
  'interaction.getState': 'flow/interaction-getState.result',
};

/** Schema issues of a message (empty when it matches the project's schema for it). */
export function schemaIssues(schema: string, message: unknown): string[] {
  return registry()
    .validate(schema, message)
    .map((issue) => JSON.stringify(issue));
}

export class FakeConnection {
  readonly connectionId: string;
  readonly faults: ActiveFaults;
  readonly sent: SentMessage[] = [];
  readonly logs: { level: LogLevel; data: unknown; logger?: string }[] = [];
  /** Server-to-client requests that broke their schema (the engine swallows client-side failures, so they are collected). */
  readonly problems: string[] = [];
  readonly #ext: FlowExtension;
  readonly #abort = new AbortController();
  #nextId = 1;
  /** Checks every result and server-to-client message against the project's schemas. */
  checkSchemas: boolean;
  answer: ClientAnswer = goodClient;

  constructor(ext: FlowExtension, connectionId: string, faults: ActiveFaults, checkSchemas: boolean) {
    this.#ext = ext;
    this.connectionId = connectionId;
    this.faults = faults;
    this.checkSchemas = checkSchemas;
  }

  get context(): ServerSessionContext {
    return {
      connectionId: this.connectionId,
      transport: 'memory',
      protocolVersion: '2025-06-18',
      clientCapabilities: {},
      clientInfo: { name: 'flow-test-client', version: '1.0.0' },
      faults: this.faults,
      signal: this.#abort.signal,
      sendRequest: async (method, params) => {
        const p = params as Record<string, unknown>;
        this.#record('request', method, p);
        return this.answer(method, p);
      },
      sendNotification: async (method, params) => {
        this.#record('notification', method, params as Record<string, unknown>);
      },
      log: (level, data, logger) => {
        this.logs.push(logger === undefined ? { level, data } : { level, data, logger });
      },
    };
  }

  #record(kind: SentMessage['kind'], method: string, params: Record<string, unknown>): void {
    this.sent.push({ kind, method, params });
    const schema = SENT_SCHEMA[method];
    if (this.checkSchemas && kind === 'request' && schema !== undefined) {
      const issues = schemaIssues(schema, { jsonrpc: '2.0', id: 99, method, params });
      if (issues.length > 0) this.problems.push(`server sent ${method} that breaks ${schema}: ${issues.join('; ')}`);
    }
  }

  #requestContext(method: string, cancelled: AbortSignal): RequestContext {
    return { ...this.context, requestId: this.#nextId++, method, cancelled, reportProgress: async () => undefined };
  }

  /** Calls a client-to-server method; resolves with its result, rejects with the RpcError. */
  async call(method: string, params?: unknown, cancelled: AbortSignal = new AbortController().signal): Promise<Record<string, unknown>> {
    const handler = this.#ext.requests?.[method];
    if (handler === undefined) throw new RpcError(-32601, `Method not found: ${method}`);
    const result = (await handler(params, this.#requestContext(method, cancelled))) as Record<string, unknown>;
    const schema = RESULT_SCHEMA[method];
    if (this.checkSchemas && schema !== undefined) {
      const issues = schemaIssues(schema, { jsonrpc: '2.0', id: 1, result });
      if (issues.length > 0) throw new Error(`${method} result breaks ${schema}: ${issues.join('; ')}`);
    }
    return result;
  }

  /** Calls a method that must fail; returns the RpcError. */
  async error(method: string, params?: unknown): Promise<RpcError> {
    try {
      const result = await this.call(method, params);
      throw new Error(`${method} succeeded with ${JSON.stringify(result)} where an error was expected`);
    } catch (error) {
      if (error instanceof RpcError) return error;
      throw error;
    }
  }

  /** Server-to-client requests of one method (all sessions, or one). */
  requests(method: string, sessionId?: string): Record<string, unknown>[] {
    return this.sent
      .filter((m) => m.kind === 'request' && m.method === method && (sessionId === undefined || m.params.sessionId === sessionId))
      .map((m) => m.params);
  }

  /** The last prompt sent (by interaction.prompt, or interaction.continue with nextPrompt). */
  lastPrompt(): { sessionId: string; prompt: Record<string, unknown> } | undefined {
    for (let i = this.sent.length - 1; i >= 0; i--) {
      const m = this.sent[i] as SentMessage;
      const prompt = m.method === 'interaction.prompt' ? m.params.prompt : m.method === 'interaction.continue' ? m.params.nextPrompt : undefined;
      if (prompt !== undefined) return { sessionId: m.params.sessionId as string, prompt: prompt as Record<string, unknown> };
    }
    return undefined;
  }

  end(): void {
    this.#abort.abort();
    this.#ext.onSessionEnd?.(this.context);
  }
}

export interface TestServer {
  ext: FlowExtension;
  clock: FakeClock;
  connect(options?: { connectionId?: string; checkSchemas?: boolean }): FakeConnection;
  settle(): Promise<void>;
}

let connections = 0;

/** A flow extension on a fake clock, with `faults` switched on for every connection. */
export function testServer(options: FlowExtensionOptions = {}, faults: readonly string[] = []): TestServer {
  const clock = new FakeClock();
  const ext = flowExtension({ clock, ...options });
  const active = new ActiveFaults(faults, FLOW_FAULTS);
  return {
    ext,
    clock,
    connect: ({ connectionId, checkSchemas } = {}) =>
      new FakeConnection(ext, connectionId ?? `conn-${++connections}`, active, checkSchemas ?? faults.length === 0),
    settle: async () => {
      await ext.engine.settled();
      if (ext.engine.failures.length > 0) throw new Error(`engine background work failed: ${ext.engine.failures.map(String).join('; ')}`);
    },
  };
}

/** Answers the current prompt of a session and waits for the engine to go on. */
export async function answer(server: TestServer, conn: FakeConnection, sessionId: string, value: unknown): Promise<Record<string, unknown>> {
  const result = await conn.call('interaction.respond', { sessionId, response: { value, timestamp: server.clock.now() } });
  await server.settle();
  return result;
}

/** The sessionId of the newest server message for the session (stateless tokens change as the session moves). */
export function latestSessionId(conn: FakeConnection, fallback: string): string {
  const last = conn.sent.filter((m) => typeof m.params.sessionId === 'string').at(-1);
  return (last?.params.sessionId as string | undefined) ?? fallback;
}
