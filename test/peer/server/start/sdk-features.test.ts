// The official SDK Client drives every feature of the mock server on every transport (WebTransport
// over HTTP/2, Streamable HTTP, stdio): initialize, tools (progress, cancellation, errors),
// resources (pages, templates, subscriptions), prompts, logging, completion, and an MCP Flow wizard
// run through client.request / client.setRequestHandler. The raw-wire counterparts are in test/peer/server/**.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  LATEST_PROTOCOL_VERSION,
  LoggingMessageNotificationSchema,
  McpError,
  ResourceUpdatedNotificationSchema,
  type JSONRPCMessage,
  type Notification,
  type Request,
  type Result,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startMockServer, type MockTransport, type RunningMockServer } from '../../../../src/peer/server/index.js';
import { connectSdkTransport } from '../../../../src/transport/webtransport/index.js';
import { cliArgs } from '../../../support/cli.js';

/** Liveness bound for anything the protocol says will arrive; never a measure of speed. */
const DEADLINE_MS = 20_000;

/** Items pushed as they arrive; `next` waits (up to the liveness deadline) for the first match. */
class Inbox<T> {
  readonly items: T[] = [];
  #waiters: { match: (item: T) => boolean; resolve: (item: T) => void }[] = [];

  push(item: T): void {
    this.items.push(item);
    for (const waiter of [...this.#waiters]) {
      if (waiter.match(item)) {
        this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
        waiter.resolve(item);
      }
    }
  }

  next(match: (item: T) => boolean, what: string): Promise<T> {
    const found = this.items.find(match);
    if (found !== undefined) return Promise.resolve(found);
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiters = this.#waiters.filter((waiter) => waiter.match !== match);
        reject(new Error(`nothing arrived within ${DEADLINE_MS} ms: ${what}`));
      }, DEADLINE_MS);
      this.#waiters.push({
        match,
        resolve: (item) => {
          clearTimeout(timer);
          resolve(item);
        },
      });
    });
  }
}

type AnyMessage = Record<string, any>;

/** MCP Flow's server-to-client requests, as the SDK's request handlers see them. */
const InteractionPromptRequestSchema = z.object({
  method: z.literal('interaction.prompt'),
  params: z.looseObject({ sessionId: z.string(), prompt: z.looseObject({ type: z.string() }) }),
});
const InteractionCompleteRequestSchema = z.object({
  method: z.literal('interaction.complete'),
  params: z.looseObject({ sessionId: z.string(), result: z.looseObject({ success: z.boolean() }) }),
});
const InteractionStartResultSchema = z.looseObject({ sessionId: z.string() });
const InteractionRespondResultSchema = z.looseObject({ accepted: z.boolean(), validation: z.looseObject({ valid: z.boolean() }) });
const InteractionStateResultSchema = z.looseObject({ state: z.string() });

/** A connected SDK client and everything it saw on the wire. */
interface Harness {
  client: Client<Request, Notification, Result>;
  /** Every message the client sent and received, in order. */
  sent: Inbox<AnyMessage>;
  received: Inbox<AnyMessage>;
  logs: Inbox<{ level: string; data: unknown }>;
  updates: Inbox<string>;
  prompts: Inbox<{ sessionId: string; prompt: AnyMessage }>;
  completions: Inbox<{ sessionId: string; result: AnyMessage }>;
  /** Errors the SDK reported through client.onerror (e.g. a response to an unknown request id). */
  errors: Error[];
}

/** The SDK transport for a transport name; stdio starts the `mock-server` command as a child process. */
async function sdkTransport(transport: MockTransport, server: RunningMockServer | undefined): Promise<Transport> {
  if (transport === 'wt') return connectSdkTransport(server!.url, { certificateHash: server!.certificateHash! });
  if (transport === 'http') return new StreamableHTTPClientTransport(new URL(server!.url));
  return new StdioClientTransport({ command: process.execPath, args: cliArgs('mock-server', '--transport', 'stdio'), stderr: 'ignore' });
}

async function connect(transport: MockTransport, server: RunningMockServer | undefined): Promise<Harness> {
  const client = new Client<Request, Notification, Result>({ name: 'sdk-features', version: '1.0.0' });
  const sent = new Inbox<AnyMessage>();
  const received = new Inbox<AnyMessage>();
  const logs = new Inbox<{ level: string; data: unknown }>();
  const updates = new Inbox<string>();
  const prompts = new Inbox<{ sessionId: string; prompt: AnyMessage }>();
  const completions = new Inbox<{ sessionId: string; result: AnyMessage }>();
  const errors: Error[] = [];
  client.onerror = (error) => errors.push(error);
  client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => logs.push({ level: notification.params.level, data: notification.params.data }));
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => updates.push(notification.params.uri));
  client.setRequestHandler(InteractionPromptRequestSchema, (request) => {
    prompts.push({ sessionId: request.params.sessionId, prompt: request.params.prompt });
    return { acknowledged: true };
  });
  client.setRequestHandler(InteractionCompleteRequestSchema, (request) => {
    completions.push({ sessionId: request.params.sessionId, result: request.params.result });
    return { success: true, finalResult: request.params.result['data'] };
  });
  const wire = await sdkTransport(transport, server);
  // Record the wire from the first message on: every message the SDK hands the transport, and every
  // message the transport hands the SDK (in arrival order, before the SDK's own handling).
  let deliver: Transport['onmessage'];
  Object.defineProperty(wire, 'onmessage', {
    configurable: true,
    enumerable: true,
    get: () =>
      deliver &&
      ((message: JSONRPCMessage, extra?: any) => {
        received.push(message as AnyMessage);
        deliver!(message, extra);
      }),
    set: (handler: Transport['onmessage']) => (deliver = handler),
  });
  const send = wire.send.bind(wire);
  wire.send = (message, options) => {
    sent.push(message as AnyMessage);
    return send(message, options);
  };
  await client.connect(wire);
  return { client, sent, received, logs, updates, prompts, completions, errors };
}

// Every transport serves the core (tools, resources, prompts, logging, completion) and MCP Flow.
// FastWorkflow replaces the core's prompts and resources and is on by default over http, so http
// starts without it here; stdio is the `mock-server --transport stdio` command in a child process
// (FastWorkflow is off there by default), started by the SDK's own StdioClientTransport.
describe.each(['wt', 'http', 'stdio'] as const)('the official SDK Client over %s', (transport) => {
  let server: RunningMockServer | undefined;
  let h: Harness;

  beforeAll(async () => {
    // WebTransport: progress goes on the control stream, not in datagrams, because the SDK transport
    // adapter (src/transport/webtransport/sdk-transport.ts) does not hand progress datagrams to the SDK.
    if (transport !== 'stdio') {
      server = await startMockServer({ transport, port: 0, fastworkflow: false, ...(transport === 'wt' ? { server: { progressDatagrams: false } } : {}) });
    }
    h = await connect(transport, server);
  }, 60_000);

  afterAll(async () => {
    try {
      await h?.client.close();
    } finally {
      await server?.close();
    }
  });

  describe('initialize', () => {
    it('negotiates the latest protocol version the SDK offers, with serverInfo and every capability', () => {
      const client = h.client;
      // The SDK offers its latest version, which the mock server supports: the server answers with it.
      const initialize = h.sent.items.find((m) => m.method === 'initialize');
      expect(initialize?.params.protocolVersion).toBe(LATEST_PROTOCOL_VERSION);
      const answer = h.received.items.find((m) => m.id === initialize!.id && !('method' in m));
      expect(answer?.result.protocolVersion).toBe(LATEST_PROTOCOL_VERSION);
      const info = client.getServerVersion();
      expect(info?.name).toEqual(expect.any(String));
      expect(info?.version).toEqual(expect.any(String));
      const capabilities = client.getServerCapabilities() as AnyMessage;
      expect(capabilities.tools).toBeDefined();
      expect(capabilities.resources).toMatchObject({ subscribe: true });
      expect(capabilities.prompts).toBeDefined();
      expect(capabilities.logging).toBeDefined();
      expect(capabilities.completions).toBeDefined();
      // The profile puts MCP Flow's capability object under experimental.interactive.
      expect(capabilities.experimental?.interactive).toMatchObject({ interactive: true, features: { progressTracking: true } });
    });
  });

  describe('tools', () => {
    it('listTools returns the core tools and the wizards in one page', async () => {
      const { tools, nextCursor } = await h.client.listTools();
      expect(nextCursor).toBeUndefined();
      const names = tools.map((tool) => tool.name);
      expect(names).toEqual(expect.arrayContaining(['echo', 'add', 'slow', 'fail', 'log', 'touch', 'registration', 'booking', 'file-export']));
      expect(tools.find((tool) => tool.name === 'add')?.outputSchema).toMatchObject({ type: 'object', properties: { sum: { type: 'number' } } });
    });

    it('callTool echo returns the text; add returns the sum as text and structuredContent', async () => {
      const echoed = await h.client.callTool({ name: 'echo', arguments: { text: `hello over ${transport}` } });
      expect(echoed.isError ?? false).toBe(false);
      expect(echoed.content).toEqual([{ type: 'text', text: `hello over ${transport}` }]);
      const added = await h.client.callTool({ name: 'add', arguments: { a: 2, b: 40 } });
      expect(added.content).toEqual([{ type: 'text', text: '42' }]);
      expect(added.structuredContent).toEqual({ sum: 42 });
    });

    it('a tool that fails inside its execution answers with an isError result, not a protocol error', async () => {
      const failed = await h.client.callTool({ name: 'fail', arguments: { message: 'broken on purpose' } });
      expect(failed.isError).toBe(true);
      expect(JSON.stringify(failed.content)).toContain('broken on purpose');
    });

    it('an unknown tool rejects the call with -32602', async () => {
      const error = await h.client.callTool({ name: 'no-such-tool', arguments: {} }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(McpError);
      expect((error as McpError).code).toBe(-32602);
      expect((error as McpError).message).toContain('no-such-tool');
    });

    it('slow sends increasing progress for the request token before its result; onprogress sees them in order', async () => {
      const seen: { progress: number; total?: number }[] = [];
      const result = await h.client.callTool({ name: 'slow', arguments: { steps: 4, stepMs: 1 } }, undefined, {
        onprogress: (progress) => seen.push(progress),
        timeout: 60_000,
      });
      expect(result.content).toEqual([{ type: 'text', text: 'completed 4 steps' }]);
      const request = h.sent.items.findLast((m) => m.method === 'tools/call' && m.params?.name === 'slow');
      const token = request!.params._meta.progressToken;
      expect(token).toBeDefined();
      // On the wire: every step's notifications/progress for the token, increasing, all before the response.
      const answerAt = h.received.items.findIndex((m) => m.id === request!.id && !('method' in m));
      const progress = h.received.items.filter((m) => m.method === 'notifications/progress' && m.params.progressToken === token);
      expect(progress.map((m) => [m.params.progress, m.params.total])).toEqual([
        [1, 4],
        [2, 4],
        [3, 4],
        [4, 4],
      ]);
      expect(progress.every((m) => h.received.items.indexOf(m) < answerAt)).toBe(true);
      // The SDK dispatches notifications a tick after it reads them but settles responses at once,
      // so notifications read together with the response miss onprogress: what it saw is a prefix.
      expect(seen).toEqual(progress.slice(0, seen.length).map((m) => expect.objectContaining({ progress: m.params.progress, total: 4 })));
    });

    it('an AbortSignal cancels slow: the SDK sends notifications/cancelled, the call rejects, the server never answers it', async () => {
      const controller = new AbortController();
      const firstProgress = new Inbox<number>();
      const call = h.client.callTool({ name: 'slow', arguments: { steps: 100_000, stepMs: 20 } }, undefined, {
        signal: controller.signal,
        onprogress: (progress) => firstProgress.push(progress.progress),
        timeout: 120_000,
      });
      const outcome = call.then(
        () => 'answered',
        (e: unknown) => e,
      );
      await firstProgress.next(() => true, 'a progress notification from slow');
      const request = h.sent.items.findLast((m) => m.method === 'tools/call' && m.params?.name === 'slow');
      expect(request).toBeDefined();
      controller.abort('the test cancels');
      expect(await outcome).not.toBe('answered');
      const cancelled = await h.sent.next((m) => m.method === 'notifications/cancelled', 'notifications/cancelled sent by the SDK');
      expect(cancelled.params.requestId).toBe(request!.id);
      // Later requests are answered; the cancelled one never is (its answer would reach the SDK as
      // a response to an unknown id, which it reports through onerror).
      const later = await h.client.callTool({ name: 'slow', arguments: { steps: 2, stepMs: 1 } });
      expect(later.content).toEqual([{ type: 'text', text: 'completed 2 steps' }]);
      await h.client.ping();
      expect(h.received.items.filter((m) => m.id === request!.id && !('method' in m))).toEqual([]);
      expect(h.errors.filter((e) => /unknown message ID/i.test(e.message))).toEqual([]);
    });
  });

  describe('resources', () => {
    it('listResources walks every page by cursor', async () => {
      const uris: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await h.client.listResources(cursor === undefined ? undefined : { cursor });
        uris.push(...page.resources.map((r) => r.uri));
        cursor = page.nextCursor;
        pages++;
      } while (cursor !== undefined && pages < 10);
      expect(cursor).toBeUndefined();
      expect(pages).toBeGreaterThan(1);
      expect(uris).toHaveLength(25);
      expect(new Set(uris).size).toBe(uris.length);
      expect(uris).toEqual(expect.arrayContaining(['mock://docs/readme.md', 'mock://counter', 'mock://docs/item-1']));
    });

    it('readResource returns text and blob contents; a missing resource is an error', async () => {
      const readme = await h.client.readResource({ uri: 'mock://docs/readme.md' });
      expect(readme.contents).toEqual([expect.objectContaining({ uri: 'mock://docs/readme.md', mimeType: 'text/markdown', text: expect.stringContaining('# Mock server') })]);
      const logo = await h.client.readResource({ uri: 'mock://binary/logo.bin' });
      expect(Buffer.from((logo.contents[0] as { blob: string }).blob, 'base64')).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
      await expect(h.client.readResource({ uri: 'mock://docs/nothing-here' })).rejects.toMatchObject({ code: -32002 });
    });

    it('listResourceTemplates lists the item template, and a URI of it reads', async () => {
      const { resourceTemplates } = await h.client.listResourceTemplates();
      expect(resourceTemplates).toEqual([expect.objectContaining({ uriTemplate: 'mock://items/{id}', name: 'item' })]);
      const item = await h.client.readResource({ uri: 'mock://items/gamma' });
      expect(item.contents[0]).toMatchObject({ uri: 'mock://items/gamma', text: expect.stringContaining('item gamma') });
    });

    it('subscribeResource then touch sends notifications/resources/updated; after unsubscribe nobody is notified', async () => {
      const counter = async () => Number(((await h.client.readResource({ uri: 'mock://counter' })).contents[0] as { text: string }).text);
      const before = await counter();
      await h.client.subscribeResource({ uri: 'mock://counter' });
      const touched = await h.client.callTool({ name: 'touch', arguments: { uri: 'mock://counter' } });
      expect(JSON.stringify(touched.content)).toContain('subscribers notified');
      await h.updates.next((uri) => uri === 'mock://counter', 'notifications/resources/updated for mock://counter');
      expect(await counter()).toBe(before + 1);
      await h.client.unsubscribeResource({ uri: 'mock://counter' });
      const again = await h.client.callTool({ name: 'touch', arguments: { uri: 'mock://counter' } });
      expect(JSON.stringify(again.content)).toContain('nobody subscribed');
    });
  });

  describe('prompts', () => {
    it('listPrompts lists greeting and summarize with their arguments', async () => {
      const { prompts } = await h.client.listPrompts();
      expect(prompts.map((p) => p.name)).toEqual(['greeting', 'summarize']);
      expect(prompts[0]!.arguments).toEqual([
        expect.objectContaining({ name: 'name', required: true }),
        expect.objectContaining({ name: 'style', required: false }),
      ]);
    });

    it('getPrompt renders with its arguments', async () => {
      const formal = await h.client.getPrompt({ name: 'greeting', arguments: { name: 'Ada', style: 'formal' } });
      expect(formal.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Good day, Ada.' } }]);
      const casual = await h.client.getPrompt({ name: 'greeting', arguments: { name: 'Alan' } });
      expect(casual.messages[0]!.content).toEqual({ type: 'text', text: 'Hi Alan!' });
    });

    it('a missing required argument rejects with -32602 naming it', async () => {
      const error = await h.client.getPrompt({ name: 'greeting', arguments: { style: 'casual' } }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(McpError);
      expect((error as McpError).code).toBe(-32602);
      expect((error as McpError).message).toContain('name');
    });
  });

  describe('logging', () => {
    it('setLoggingLevel filters notifications/message: only messages at or above the level arrive', async () => {
      await h.client.setLoggingLevel('warning');
      try {
        for (const [level, message] of [
          ['debug', 'below: debug'],
          ['info', 'below: info'],
          ['error', 'above: error'],
          ['warning', 'at: warning'],
        ] as const) {
          const result = await h.client.callTool({ name: 'log', arguments: { level, message } });
          expect(result.isError ?? false).toBe(false);
        }
        await h.logs.next((log) => log.data === 'above: error', 'the error message');
        await h.logs.next((log) => log.data === 'at: warning', 'the warning message');
        // A sentinel sent after everything else: once it is here, the filtered ones would be too.
        await h.client.callTool({ name: 'log', arguments: { level: 'critical', message: 'sentinel' } });
        await h.logs.next((log) => log.data === 'sentinel', 'the sentinel message');
        expect(h.logs.items.filter((log) => String(log.data).startsWith('below:'))).toEqual([]);
        expect(h.logs.items.find((log) => log.data === 'above: error')?.level).toBe('error');
      } finally {
        await h.client.setLoggingLevel('debug');
      }
    });
  });

  describe('completion', () => {
    it('complete() offers values for a prompt argument and for a resource template variable', async () => {
      const names = await h.client.complete({ ref: { type: 'ref/prompt', name: 'greeting' }, argument: { name: 'name', value: 'A' } });
      expect(names.completion.values).toEqual(['Ada', 'Alan']);
      const ids = await h.client.complete({ ref: { type: 'ref/resource', uri: 'mock://items/{id}' }, argument: { name: 'id', value: 'g' } });
      expect(ids.completion.values).toEqual(['gamma']);
    });
  });

  describe('MCP Flow', () => {
    it('runs the registration wizard: interaction.start, each interaction.prompt answered by interaction.respond, interaction.complete', async () => {
      const { sessionId } = await h.client.request({ method: 'interaction.start', params: { toolName: 'registration' } }, InteractionStartResultSchema);
      const answers = ['Eve', 'eve@example.com', 33, 'free', true, null, null];
      const answered = new Set<object>();
      for (const [index, value] of answers.entries()) {
        // The server sends the next interaction.prompt only after the previous answer was accepted.
        const prompt = await h.prompts.next((p) => p.sessionId === sessionId && !answered.has(p), `interaction.prompt ${index + 1}`);
        answered.add(prompt);
        expect(prompt.prompt.type).toEqual(expect.any(String));
        const respond = await h.client.request({ method: 'interaction.respond', params: { sessionId, response: { value } } }, InteractionRespondResultSchema);
        expect(respond).toMatchObject({ accepted: true, validation: { valid: true } });
      }
      const complete = await h.completions.next((c) => c.sessionId === sessionId, 'interaction.complete');
      expect(complete.result).toMatchObject({ success: true, data: { user: { name: 'Eve', email: 'eve@example.com' }, plan: 'free' } });
      expect(h.prompts.items.filter((p) => p.sessionId === sessionId)).toHaveLength(answers.length);
      const state = await h.client.request({ method: 'interaction.getState', params: { sessionId } }, InteractionStateResultSchema);
      expect(state.state).toBe('completed');
      // The SDK answered every server request; none of them failed on the client side.
      const serverRequests = h.received.items.filter((m) => (m.method === 'interaction.prompt' || m.method === 'interaction.complete') && m.params.sessionId === sessionId);
      expect(serverRequests).toHaveLength(answers.length + 1);
      const replies = serverRequests.map((request) => h.sent.items.find((m) => !('method' in m) && m.id === request.id));
      expect(replies.every((reply) => reply?.result !== undefined && reply.error === undefined)).toBe(true);
    });
  });
});

// Over WebTransport the mock server sends progress in datagrams by default (WT-DGRAM-6); the SDK
// transport adapter turns them into the notifications the SDK knows.
describe('the official SDK Client over wt, progress in datagrams (the server default)', () => {
  let server: RunningMockServer | undefined;
  let h: Harness | undefined;

  beforeAll(async () => {
    server = await startMockServer({ transport: 'wt', port: 0, fastworkflow: false });
    h = await connect('wt', server);
  }, 60_000);

  afterAll(async () => {
    try {
      await h?.client.close();
    } finally {
      await server?.close();
    }
  });

  // The adapter hands progress datagrams (channel 0x01) to the SDK as notifications/progress.
  // Datagrams are not ordered with the control stream, so the SDK may get some after the result
  // (and then drop them); the check waits for the notifications the adapter delivered, not for
  // what onprogress happened to see in time.
  it("hands slow's progress datagrams to the SDK as notifications/progress for the request's token", async () => {
    const result = await h!.client.callTool({ name: 'slow', arguments: { steps: 3, stepMs: 20 } }, undefined, {
      onprogress: () => {},
      timeout: 60_000,
    });
    expect(result.content).toEqual([{ type: 'text', text: 'completed 3 steps' }]);
    const request = h!.sent.items.findLast((m) => m.method === 'tools/call' && m.params?.name === 'slow');
    const token = request!.params._meta.progressToken;
    for (const step of [1, 2, 3]) {
      const progress = await h!.received.next(
        (m) => m.method === 'notifications/progress' && m.params.progressToken === token && m.params.progress === step,
        `progress ${step} of 3 from a datagram`,
      );
      expect(progress.params).toMatchObject({ progressToken: token, progress: step, total: 3 });
    }
  });
});
