// Shared by the proxy tests: the official SDK Client driving one session through the proxy, and a
// mock server + proxy pair started and closed together.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Notification, Request, Result } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { startProxy, type RunningProxy, type UpstreamSpec } from '../../../src/peer/proxy/index.js';
import { startMockServer, type MockTransport, type RunningMockServer, type StartMockServerOptions } from '../../../src/peer/server/index.js';
import { connectSdkTransport } from '../../../src/transport/webtransport/index.js';

/** Liveness bound for one SDK call; never a measure of speed. */
export const CALL_DEADLINE_MS = 15_000;

const InteractionPrompt = z.object({
  method: z.literal('interaction.prompt'),
  params: z.looseObject({ sessionId: z.string(), prompt: z.looseObject({ type: z.string() }) }),
});
const InteractionComplete = z.object({
  method: z.literal('interaction.complete'),
  params: z.looseObject({ sessionId: z.string(), result: z.looseObject({}) }),
});
const StartResult = z.looseObject({ sessionId: z.string() });
const AnyResult = z.looseObject({});

export interface SessionPlan {
  /** Also run the registration wizard (MCP Flow). */
  flow?: boolean;
  /** WebTransport: the encodings the SDK transport offers. */
  encodings?: string[];
  /** Stop at the first step that fails (a faulty server: the rest would only wait out deadlines). */
  stopOnFailure?: boolean;
}

/** What the SDK client got: the steps that failed (a faulty server may break the SDK's own checks). */
export interface SessionOutcome {
  failures: string[];
}

function sdkTransport(transport: MockTransport, url: string, certificateHash: string | undefined, plan: SessionPlan): Promise<Transport> | Transport {
  if (transport === 'wt') {
    return connectSdkTransport(url, { certificateHash: certificateHash!, timeoutMs: CALL_DEADLINE_MS, ...(plan.encodings ? { encodings: plan.encodings } : {}) });
  }
  return new StreamableHTTPClientTransport(new URL(url));
}

/** A clean MCP session with the SDK Client: initialize, lists, a tool call, a resource read, a prompt get (and a wizard). */
export async function runSdkSession(transport: MockTransport, url: string, certificateHash: string | undefined, plan: SessionPlan = {}): Promise<SessionOutcome> {
  const failures: string[] = [];
  const client = new Client<Request, Notification, Result>({ name: 'proxy-test', version: '1.0.0' });
  client.onerror = () => undefined;
  const prompts: string[] = [];
  let completed: (() => void) | undefined;
  const completion = new Promise<void>((resolve) => (completed = resolve));
  client.setRequestHandler(InteractionPrompt, (request) => {
    prompts.push(request.params.sessionId);
    return { acknowledged: true };
  });
  client.setRequestHandler(InteractionComplete, (request) => {
    completed?.();
    return { success: true, finalResult: request.params.result['data'] };
  });
  const wire = await sdkTransport(transport, url, certificateHash, plan);
  const options = { timeout: CALL_DEADLINE_MS };
  const step = async (name: string, work: () => Promise<unknown>) => {
    if (plan.stopOnFailure && failures.length > 0) return;
    try {
      await work();
    } catch (error) {
      failures.push(`${name}: ${(error as Error).message}`);
    }
  };
  try {
    await step('connect', () => client.connect(wire, options));
    if (failures.length === 0) {
      await step('listTools', () => client.listTools(undefined, options));
      await step('listResources', () => client.listResources(undefined, options));
      await step('listPrompts', () => client.listPrompts(undefined, options));
      await step('callTool', () => client.callTool({ name: 'echo', arguments: { text: 'through the proxy' } }, undefined, options));
      await step('readResource', () => client.readResource({ uri: 'mock://docs/readme.md' }, options));
      await step('getPrompt', () => client.getPrompt({ name: 'greeting', arguments: { name: 'Ada' } }, options));
      if (plan.flow) await step('wizard', () => runWizard(client, prompts, completion));
    }
  } finally {
    if (wire instanceof StreamableHTTPClientTransport) await wire.terminateSession().catch(() => undefined);
    await client.close().catch(() => undefined);
    await wire.close().catch(() => undefined);
  }
  return { failures };
}

async function runWizard(client: Client<Request, Notification, Result>, prompts: string[], completion: Promise<void>): Promise<void> {
  const options = { timeout: CALL_DEADLINE_MS };
  const { sessionId } = await client.request({ method: 'interaction.start', params: { toolName: 'registration' } }, StartResult, options);
  const answers = ['Eve', 'eve@example.com', 33, 'free', true, null, null];
  for (const [index, value] of answers.entries()) {
    await until(() => prompts.filter((id) => id === sessionId).length > index, `interaction.prompt ${index + 1}`);
    await client.request({ method: 'interaction.respond', params: { sessionId, response: { value } } }, AnyResult, options);
  }
  await Promise.race([completion, new Promise((_, reject) => setTimeout(() => reject(new Error('no interaction.complete')), CALL_DEADLINE_MS).unref())]);
  await client.request({ method: 'interaction.getState', params: { sessionId } }, AnyResult, options);
}

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + CALL_DEADLINE_MS;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`nothing arrived within ${CALL_DEADLINE_MS} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The upstream spec of a running mock server. */
export function upstreamOf(server: RunningMockServer): UpstreamSpec {
  return server.transport === 'wt'
    ? { transport: 'webtransport', url: server.url, certificateHash: server.certificateHash! }
    : { transport: 'http', url: server.url };
}

export interface Pair {
  server: RunningMockServer;
  proxy: RunningProxy;
  close(): Promise<void>;
}

/** A mock server on `transport` (with `faults`) and a proxy in front of it listening on the same transport. */
export async function startPair(transport: 'wt' | 'http', options: Partial<StartMockServerOptions> = {}, listen: 'wt' | 'http' = transport): Promise<Pair> {
  const server = await startMockServer({ transport, port: 0, fastworkflow: false, ...(transport === 'wt' ? { server: { progressDatagrams: false } } : {}), ...options });
  try {
    const proxy = await startProxy({ listen: { transport: listen === 'wt' ? 'webtransport' : 'http', port: 0 }, upstream: upstreamOf(server) });
    return {
      server,
      proxy,
      close: async () => {
        await proxy.close();
        await server.close();
      },
    };
  } catch (error) {
    await server.close();
    throw error;
  }
}
