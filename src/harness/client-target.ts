// A client under test as a Target: for each case the harness starts a server of its own on
// 127.0.0.1 (WebTransport over HTTP/2 or HTTP/3 with a self-signed certificate, or Streamable
// HTTP), runs the client with that URL appended and the case's scenario in its environment
// (docs/client-scenarios.md), and hands the case the server side of the first session the client
// opens. Discovery runs the `initialize` scenario once to learn what the client declares.
import { errorResponse, resultResponse } from '../protocol/jsonrpc.js';
import type { Connection } from '../transport/connection.js';
import { ConnectionError } from '../transport/errors.js';
import { listenHttp, type HttpListener, type HttpServerConnection } from '../transport/http/index.js';
import { ArrivalQueue } from '../transport/arrival-queue.js';
import { generateSelfSignedCertificate, listenWebTransport, type TlsMaterial, type WebTransportServer } from '../transport/webtransport/index.js';
import { webTransportBinding } from '../peer/server/binding.js';
import { isRecord } from '../wire/index.js';
import type { CaseSession, ClientScenario, Discovery, RegisteredCase, Target, TargetDescription } from './case.js';
import { answerInitialize, isInitializeRequest } from './client-session.js';
import { InProcessRun, SpawnedClient, type InProcessClient, type RunningClient } from './client-process.js';
import { CaseMisuseError, TargetUnreachableError } from './errors.js';
import { shellQuote } from './rerun.js';

export type ClientTransport = 'webtransport' | 'http';

/** Default deadline for the client to open its session: clients started through npx or a shell are slow to start. */
const DEFAULT_CONNECT_MS = 15_000;
const DISCOVERY_CONNECT_MS = 10_000;

export interface ClientTargetOptions {
  /** Program and arguments of the client under test; the server URL is appended. */
  command?: readonly string[];
  /**
   * Instead of a command: a client run in this process per case (tests of a client library; the
   * contract is the same, docs/client-scenarios.md). `description` then names it.
   */
  inProcess?: InProcessClient;
  /** How reports name an in-process client. Default 'in-process client'. */
  description?: string;
  transport: ClientTransport;
  /** HTTP version under WebTransport. Default 2. */
  http?: 2 | 3;
  /** Added to the client's environment. */
  env?: Record<string, string>;
  cwd?: string;
  /** How long the client may take to open its session (before --timeout-scale; capped by the case's limit). Default 15000. */
  connectTimeoutMs?: number;
  /** Between SIGTERM and SIGKILL when stopping the client. Default 2000. */
  stopGraceMs?: number;
  /** Deadline of each step of discovery. Default 10000. */
  discoveryStepMs?: number;
}

/** The client ended, or never opened a session, before the case could start. */
export class ClientNotConnectedError extends ConnectionError {
  constructor(message: string) {
    super('CLIENT_NOT_CONNECTED', message);
  }
}

/** A server of the harness's own, for one case: it hands out the sessions clients open. */
interface CaseListener {
  url: string;
  certificateHash?: string;
  nextSession(signal: AbortSignal): Promise<Connection>;
  close(): Promise<void>;
}

async function listenWt(tls: TlsMaterial, http: 2 | 3): Promise<CaseListener> {
  // The binding's rules (admission before READY, result.transport) as the mock server has them.
  const server: WebTransportServer = await listenWebTransport({ tls, http, path: '/mcp', ...webTransportBinding().listener });
  return {
    url: server.url,
    certificateHash: server.certificateHash,
    nextSession: (signal) => server.nextConnection({ signal }),
    close: () => server.close(),
  };
}

async function listenStreamableHttp(): Promise<CaseListener> {
  const sessions = new ArrivalQueue<HttpServerConnection>('Streamable HTTP session');
  const listener: HttpListener = await listenHttp({ onSession: (connection) => sessions.push(connection) });
  return {
    url: listener.url,
    nextSession: (signal) => sessions.next(undefined, { signal }),
    close: async () => {
      sessions.close(new ClientNotConnectedError('the harness server closed'));
      await listener.close();
    },
  };
}

/** The client under test, judged with the harness as its server. */
export function clientTarget(options: ClientTargetOptions): Target {
  const command = options.command ?? [];
  if ((command.length === 0) === (options.inProcess === undefined)) {
    throw new CaseMisuseError('clientTarget needs either the command of the client under test or an in-process client');
  }
  const commandLine = options.inProcess ? (options.description ?? 'in-process client') : command.map(shellQuote).join(' ');
  const description: TargetDescription = {
    description: commandLine,
    transport: options.transport,
    role: 'client',
    rerunArgs: ['--transport', options.transport === 'webtransport' ? 'wt' : 'http', ...(options.http === 3 ? ['--http', '3'] : []), '--command', commandLine],
  };
  const stopGraceMs = options.stopGraceMs ?? 2000;
  let tls: Promise<TlsMaterial> | undefined;

  /** Starts a listener and the client, and waits for the client's first session. */
  async function open(signal: AbortSignal, scenario: ClientScenario, connectTimeoutMs: number): Promise<CaseSession> {
    const listener =
      options.transport === 'webtransport'
        ? await listenWt(await (tls ??= generateSelfSignedCertificate()), options.http ?? 2)
        : await listenStreamableHttp();
    let client: RunningClient;
    try {
      const certificate = listener.certificateHash !== undefined ? { certificateHash: listener.certificateHash } : {};
      client = options.inProcess
        ? new InProcessRun(options.inProcess, { url: listener.url, scenario, transport: options.transport, ...certificate })
        : await SpawnedClient.start({
            command,
            url: listener.url,
            scenario,
            transport: options.transport,
            ...certificate,
            ...(options.env !== undefined ? { env: options.env } : {}),
            ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
          });
    } catch (error) {
      await listener.close().catch(() => undefined);
      throw error;
    }
    // Stops the client, then closes the listener (its sessions, its sockets). Each step settles
    // within its own bound, so the disposal does too, and nothing of the case is left to keep the
    // harness running afterwards.
    let disposing: Promise<void> | undefined;
    const dispose = () =>
      (disposing ??= (async () => {
        await client.stop(stopGraceMs).catch(() => undefined);
        await listener.close().catch(() => undefined);
      })());
    const waiting = new AbortController();
    const onAbort = () => waiting.abort(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    const timer = setTimeout(
      () => waiting.abort(new ClientNotConnectedError(`the client opened no session within ${connectTimeoutMs} ms (${client.describeExit()}); its stderr ends with:\n${client.stderrTail()}`)),
      connectTimeoutMs,
    );
    void client.exited.then(() =>
      waiting.abort(new ClientNotConnectedError(`the client ${client.describeExit()} without opening a session; its stderr ends with:\n${client.stderrTail()}`)),
    );
    try {
      const connection = await listener.nextSession(waiting.signal);
      // A Streamable HTTP session has no end of its own: once the client process is gone, so is it.
      if (options.transport === 'http') void client.exited.then(() => connection.close('the client under test exited'));
      return { connection, client, dispose };
    } catch (error) {
      await dispose();
      throw error;
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
    }
  }

  return {
    describe: () => description,
    connect: () => Promise.reject(new CaseMisuseError('a client target opens sessions per case (openCase): the case needs a scenario')),
    async openCase(signal: AbortSignal, c: RegisteredCase, run: { timeoutScale: number }): Promise<CaseSession> {
      if (c.scenario === undefined) throw new CaseMisuseError(`case ${c.id} runs against a client but names no scenario`);
      // The client must open its session well within the case's limit, so the case can still judge what it did.
      const scale = run.timeoutScale;
      return open(signal, c.scenario, Math.min((options.connectTimeoutMs ?? DEFAULT_CONNECT_MS) * scale, c.timeLimitMs * scale * 0.75));
    },
    async discover(signal: AbortSignal, run?: { timeoutScale: number }): Promise<Discovery> {
      let session: CaseSession;
      try {
        // Within discovery's own limit (15 s scaled), leaving time for the initialize exchange.
        session = await open(signal, { name: 'initialize', context: {} }, (options.connectTimeoutMs ?? DISCOVERY_CONNECT_MS) * (run?.timeoutScale ?? 1));
      } catch (error) {
        if (error instanceof ConnectionError) throw new TargetUnreachableError(commandLine, { cause: error });
        throw error;
      }
      try {
        return await discoverClient(session.connection, options.discoveryStepMs ?? 10_000, signal);
      } catch (error) {
        if (error instanceof ConnectionError) return { error: { code: error.code, message: error.message } };
        throw error;
      } finally {
        await session.connection.close('discovery done').catch(() => undefined);
        await session.dispose();
      }
    },
  };
}

/** Plays the `initialize` scenario's server side and records what the client declared. */
async function discoverClient(connection: Connection, stepMs: number, signal: AbortSignal): Promise<Discovery> {
  const received = await connection.next(isInitializeRequest, { timeoutMs: stepMs, signal });
  const request = received.message as Record<string, unknown>;
  const params = isRecord(request.params) ? request.params : {};
  const discovery: Discovery = {};
  if (typeof params.protocolVersion === 'string') discovery.protocolVersion = params.protocolVersion;
  if (params.clientInfo !== undefined) discovery.clientInfo = params.clientInfo;
  if (isRecord(params.capabilities)) discovery.capabilities = params.capabilities;
  if (isRecord(params.transport)) discovery.transport = params.transport;
  await answerInitialize(connection, request);
  // Serve the client (pings, an empty tool list) until it confirms with notifications/initialized,
  // lists tools, or leaves: discovery needs only what initialize declared.
  for (;;) {
    let next;
    try {
      next = await connection.next(undefined, { timeoutMs: stepMs, signal });
    } catch {
      return discovery;
    }
    const message = next.message;
    if (isRecord(message) && message.method === 'notifications/initialized') return discovery;
    if (!isRecord(message) || typeof message.method !== 'string' || !('id' in message)) continue;
    if (message.method === 'tools/list') {
      await connection.send(resultResponse(message.id, { tools: [] }));
      return discovery;
    }
    await connection.send(message.method === 'ping' ? resultResponse(message.id, {}) : errorResponse(message.id, -32601, `Method not found: ${message.method}`));
  }
}
