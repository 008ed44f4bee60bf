// Test support for the FastWorkflow profile: a fake RequestContext that records what the tools
// send, a harness around one extension on a temporary store directory, and readers for results
// and failures that validate them against schemas/fastworkflow.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { ActiveFaults, RpcError, type LogLevel, type RequestContext, type ToolResult } from '../../../../src/peer/server/extension.js';
import { FASTWORKFLOW_FAULTS } from '../../../../src/peer/server/fastworkflow/faults.js';
import { fastWorkflowExtension, type FastWorkflowExtension, type FastWorkflowOptions } from '../../../../src/peer/server/fastworkflow/extension.js';
import { detectFastWorkflowFailure } from '../../../../src/protocol/fastworkflow-errors.js';
import { SchemaRegistry } from '../../../../src/schema/registry.js';

export const registry = SchemaRegistry.load();

/** `[]` when `value` matches schemas/fastworkflow/<slug>.schema.json. */
export function issues(slug: string, value: unknown): unknown[] {
  return registry.validate(`fastworkflow/${slug}`, value);
}

export interface Recorded {
  logs: { level: LogLevel; data: unknown; logger: string | undefined }[];
  progress: { progress: number; total: number | undefined; message: string | undefined }[];
}

export interface FakeContextOptions {
  connectionId?: string;
  faults?: readonly string[];
  protocolVersion?: string;
  /** Exposed on the context as `progressToken` (as a core that passes it through would). */
  progressToken?: string | number;
  method?: string;
}

export type FakeContext = RequestContext & { recorded: Recorded; cancel(reason?: unknown): void; end(): void };

let nextRequest = 1;

/** A RequestContext whose notifications are recorded instead of sent. */
export function fakeContext(options: FakeContextOptions = {}): FakeContext {
  const recorded: Recorded = { logs: [], progress: [] };
  const cancelled = new AbortController();
  const session = new AbortController();
  const context = {
    connectionId: options.connectionId ?? 'session-1',
    transport: 'http',
    protocolVersion: options.protocolVersion ?? '2025-06-18',
    clientCapabilities: {},
    clientInfo: { name: 'test', version: '1' },
    faults: new ActiveFaults(options.faults ?? [], FASTWORKFLOW_FAULTS),
    signal: session.signal,
    requestId: nextRequest++,
    method: options.method ?? 'tools/call',
    cancelled: AbortSignal.any([cancelled.signal, session.signal]),
    sendRequest: async () => {
      throw new RpcError(-32601, 'the fake context sends no requests');
    },
    sendNotification: async () => undefined,
    log: (level: LogLevel, data: unknown, logger?: string) => {
      recorded.logs.push({ level, data, logger });
    },
    reportProgress: async (progress: number, total?: number, message?: string) => {
      if (options.progressToken !== undefined) recorded.progress.push({ progress, total, message });
    },
    recorded,
    cancel: (reason?: unknown) => cancelled.abort(reason),
    end: () => session.abort(),
    ...(options.progressToken !== undefined ? { progressToken: options.progressToken } : {}),
  };
  return context;
}

/** A tool failure as the client would see it: the JSON-RPC error (or isError result) and its status. */
export interface Failure {
  status: number | undefined;
  /** The JSON-RPC response the core would send. */
  response: Record<string, unknown>;
}

/** One extension on a fresh temporary store directory. */
export class Harness {
  readonly dir: string;
  readonly ext: FastWorkflowExtension;
  readonly faults: readonly string[];
  #owned: boolean;

  constructor(options: Partial<FastWorkflowOptions> & { faults?: readonly string[]; dir?: string } = {}) {
    const { faults = [], dir, ...rest } = options;
    this.#owned = dir === undefined;
    this.dir = dir ?? mkdtempSync(join(tmpdir(), 'fw-store-'));
    this.faults = faults;
    this.ext = fastWorkflowExtension({ storeDir: this.dir, faults, ...rest });
  }

  ctx(options: FakeContextOptions = {}): FakeContext {
    return fakeContext({ faults: this.faults, ...options });
  }

  tool(name: string) {
    const tool = this.ext.tools!.find((t) => t.name === name);
    if (!tool) throw new Error(`no tool ${name}`);
    return tool;
  }

  /** Calls a tool and returns the raw ToolResult (throws what the tool throws). */
  raw(name: string, args: Record<string, unknown> = {}, ctx: RequestContext = this.ctx()): Promise<ToolResult> {
    return this.tool(name).call(args, ctx);
  }

  /** Calls a tool that must succeed; returns its structuredContent after checking the text item holds the same JSON. */
  async ok(name: string, args: Record<string, unknown> = {}, ctx: RequestContext = this.ctx()): Promise<Record<string, unknown>> {
    const result = await this.raw(name, args, ctx);
    expect(result.isError).toBeUndefined();
    expect(result.content).toHaveLength(1);
    const text = (result.content[0] as { type: string; text: string }).text;
    expect(JSON.parse(text)).toEqual(result.structuredContent);
    return result.structuredContent as Record<string, unknown>;
  }

  /** Calls a tool once; returns the JSON-RPC response the core would send and whether (and with which status) it failed. */
  async outcome(name: string, args: Record<string, unknown> = {}, ctx: RequestContext = this.ctx()): Promise<Failure & { failed: boolean }> {
    let response: Record<string, unknown>;
    try {
      const result = await this.raw(name, args, ctx);
      response = { jsonrpc: '2.0', id: 1, result };
    } catch (error) {
      if (!(error instanceof RpcError)) throw error;
      response = { jsonrpc: '2.0', id: 1, error: error.toJSON() };
    }
    const detected = detectFastWorkflowFailure(response);
    return { failed: detected.failed, status: detected.failed ? detected.status : undefined, response };
  }

  /** Calls a tool that must fail; returns the status a client reads back (profile C-26). */
  async fail(name: string, args: Record<string, unknown> = {}, ctx: RequestContext = this.ctx()): Promise<Failure> {
    const { failed, status, response } = await this.outcome(name, args, ctx);
    expect(failed, `${name} should have failed: ${JSON.stringify(response)}`).toBe(true);
    return { status, response };
  }

  cleanup(): void {
    if (this.#owned) rmSync(this.dir, { recursive: true, force: true });
  }
}

/** A slow command that finishes only when released (or rejects when its turn is aborted). */
export function gate(): { slowCommand: (signal: AbortSignal) => Promise<void>; started: Promise<void>; release(): void } {
  let release!: () => void;
  let markStarted!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const started = new Promise<void>((resolve) => (markStarted = resolve));
  return {
    started,
    release: () => release(),
    slowCommand: (signal) =>
      new Promise<void>((resolve, reject) => {
        markStarted();
        signal.addEventListener('abort', () => reject(signal.reason), { once: true });
        void released.then(resolve);
      }),
  };
}
