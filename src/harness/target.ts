// Targets: the implementation under test, reached through any Connection. `connectionTarget`
// wraps a connect function and adds the standard discovery (initialize, then the lists the server
// declared), so every transport gets the same applicability data.
import { findInteractiveAdvertisements } from '../protocol/flow-capability.js';
import { LATEST_PROTOCOL_VERSION } from '../protocol/methods.js';
import { notification, request } from '../protocol/jsonrpc.js';
import type { Connection, TransportKind } from '../transport/connection.js';
import { ConnectFailedError, ConnectionError } from '../transport/errors.js';
import type { Discovery, Target, TargetDescription } from './case.js';
import { TargetUnreachableError } from './errors.js';
import { timesTargetSpeed } from './context.js';
import { isRecord } from '../wire/index.js';

export const HARNESS_CLIENT_INFO = { name: 'mcp-flow-conformance', version: '0.1.0' } as const;

export interface ConnectionTargetOptions {
  description: string;
  transport: TransportKind;
  /** CLI arguments that select this target again, for rerun commands (e.g. ['--url', url]). */
  rerunArgs: string[];
  connect(signal: AbortSignal): Promise<Connection>;
  /** Protocol version asked for in discovery. Default: the latest. */
  protocolVersion?: string;
  /** Deadline of each discovery request in ms. Default 10000. */
  requestTimeoutMs?: number;
  /** Members added to the discovery initialize params (e.g. the WebTransport binding's `transport`). */
  initializeParams?: Record<string, unknown>;
  /** MCP Flow tools to use instead of probing every listed tool with `interaction.start`. */
  interactiveTools?: readonly string[];
  /** Target.defaultWorkers. */
  defaultWorkers?: number;
}

/** Names of the first page of a list result (`tools`, `prompts`, `resources`), each item's `name` or `uri`. */
function names(result: unknown, key: string): string[] | undefined {
  if (!isRecord(result) || !Array.isArray(result[key])) return undefined;
  return (result[key] as unknown[]).flatMap((item) =>
    isRecord(item) && typeof (item.name ?? item.uri) === 'string' ? [String(item.name ?? item.uri)] : [],
  );
}

/** Runs initialize + notifications/initialized + the declared lists over `connection`. */
export async function discoverOver(
  connection: Connection,
  options: {
    protocolVersion?: string;
    requestTimeoutMs?: number;
    signal?: AbortSignal;
    initializeParams?: Record<string, unknown>;
    interactiveTools?: readonly string[];
  } = {},
): Promise<Discovery> {
  const timeoutMs = options.requestTimeoutMs ?? 10_000;
  const discovery: Discovery = {};
  let id = 0;
  /** `unbounded`: only the signal ends the wait (a target that starts slowly, e.g. a process on a loaded machine). */
  const call = async (method: string, params: Record<string, unknown>, unbounded = false): Promise<Record<string, unknown>> => {
    // Over WebTransport a string id may be refused (WT-ID-2 accepts -32600: headers carry 32-bit ids).
    const requestId = connection.kind === 'webtransport' ? ++id : `discover-${++id}`;
    const sentAt = Date.now();
    await connection.send(request(requestId, method, params));
    const received = await connection.next((r) => isRecord(r.message) && r.message.id === requestId && !('method' in r.message), {
      ...(unbounded && options.signal ? {} : { timeoutMs }),
      ...(options.signal ? { signal: options.signal } : {}),
    });
    // The slowest round trip of the requests that ask for no work (not initialize, whose answer may wait for a process to start).
    if (timesTargetSpeed(method)) discovery.roundTripMs = Math.max(discovery.roundTripMs ?? 0, received.at - sentAt);
    return received.message as Record<string, unknown>;
  };
  // The initialize answer waits as long as discovery may take (the runner's limit, stretched by
  // --timeout-scale); later requests each get their own deadline.
  const init = await call('initialize', {
    protocolVersion: options.protocolVersion ?? LATEST_PROTOCOL_VERSION,
    capabilities: {},
    clientInfo: HARNESS_CLIENT_INFO,
    ...options.initializeParams,
  }, options.requestTimeoutMs === undefined);
  if (!isRecord(init.result)) {
    const error = isRecord(init.error) ? init.error : {};
    return { error: { code: 'INITIALIZE_FAILED', message: `initialize was answered without a result: ${JSON.stringify(error).slice(0, 300)}` } };
  }
  const result = init.result;
  if (typeof result.protocolVersion === 'string') discovery.protocolVersion = result.protocolVersion;
  if (result.serverInfo !== undefined) discovery.serverInfo = result.serverInfo;
  if (isRecord(result.capabilities)) discovery.capabilities = result.capabilities;
  if (typeof result.instructions === 'string') discovery.instructions = result.instructions;
  if (isRecord(result.transport)) discovery.transport = result.transport;
  await connection.send(notification('notifications/initialized'));
  const lists = [
    ['tools', 'tools/list'],
    ['prompts', 'prompts/list'],
    ['resources', 'resources/list'],
  ] as const;
  for (const [capability, method] of lists) {
    if (!discovery.capabilities || !Object.hasOwn(discovery.capabilities, capability)) continue;
    // Lists are best effort: a list that fails is left undefined (the suites check the list itself).
    let answer: Record<string, unknown>;
    try {
      answer = await call(method, {});
    } catch (error) {
      if (error instanceof ConnectionError && !options.signal?.aborted) break;
      throw error;
    }
    const listed = names(answer.result, capability);
    if (listed !== undefined) discovery[capability] = listed;
  }
  await discoverFlow(discovery, call, options);
  return discovery;
}

/**
 * MCP Flow discovery (best effort, like the lists): the `capabilities` method, then, when the
 * server advertises interactive support anywhere (C-14), which tools `interaction.start` accepts.
 * Each session started by the probe is cancelled at once.
 */
async function discoverFlow(
  discovery: Discovery,
  call: (method: string, params: Record<string, unknown>) => Promise<Record<string, unknown>>,
  options: { signal?: AbortSignal; interactiveTools?: readonly string[] },
): Promise<void> {
  const guarded = async (method: string, params: Record<string, unknown>): Promise<Record<string, unknown> | undefined> => {
    try {
      return await call(method, params);
    } catch (error) {
      if (error instanceof ConnectionError && !options.signal?.aborted) return undefined;
      throw error;
    }
  };
  const answer = await guarded('capabilities', {});
  if (answer && isRecord(answer.result)) discovery.flowCapabilities = answer.result;
  if (options.interactiveTools !== undefined) {
    discovery.interactiveTools = [...options.interactiveTools];
    return;
  }
  if (findInteractiveAdvertisements(discovery.capabilities, discovery.flowCapabilities).length === 0) return;
  const interactive: string[] = [];
  for (const toolName of discovery.tools ?? []) {
    const started = await guarded('interaction.start', { toolName });
    if (!started) break;
    if (!isRecord(started.result)) continue;
    interactive.push(toolName);
    const sessionId = started.result.sessionId;
    if (typeof sessionId === 'string' && !(await guarded('interaction.cancel', { sessionId, reason: 'conformance discovery probe' }))) break;
  }
  discovery.interactiveTools = interactive;
}

/** A Target over a connect function, with the standard discovery on its own connection. */
export function connectionTarget(options: ConnectionTargetOptions): Target {
  const description: TargetDescription = { description: options.description, transport: options.transport, rerunArgs: [...options.rerunArgs] };
  return {
    describe: () => description,
    connect: (signal) => options.connect(signal),
    ...(options.defaultWorkers !== undefined ? { defaultWorkers: options.defaultWorkers } : {}),
    async discover(signal) {
      let connection: Connection;
      try {
        connection = await options.connect(signal);
      } catch (error) {
        // Nothing can be tested when discovery cannot even connect: wrong URL, refused, bad TLS material...
        throw new TargetUnreachableError(options.description, { cause: error });
      }
      try {
        return await discoverOver(connection, {
          signal,
          ...(options.protocolVersion !== undefined ? { protocolVersion: options.protocolVersion } : {}),
          ...(options.requestTimeoutMs !== undefined ? { requestTimeoutMs: options.requestTimeoutMs } : {}),
          ...(options.initializeParams !== undefined ? { initializeParams: options.initializeParams } : {}),
          ...(options.interactiveTools !== undefined ? { interactiveTools: options.interactiveTools } : {}),
        });
      } catch (error) {
        // Transports that connect lazily (Streamable HTTP) only find out here that nothing answers at that address.
        if (error instanceof ConnectFailedError) throw new TargetUnreachableError(options.description, { cause: error });
        if (error instanceof ConnectionError) return { error: { code: error.code, message: error.message } };
        throw error;
      } finally {
        await connection.close('discovery done');
      }
    },
  };
}
