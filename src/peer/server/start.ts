// startMockServer: the reference mock server assembled and listening on one transport (WebTransport,
// Streamable HTTP or this process's stdio): the core, the MCP Flow engine with its wizards, the
// FastWorkflow profile (on by default over HTTP), faults, limits and a readable message log.
// The `mock-server` command is a thin shell around it; test suites use it in-process as a fixture.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import type { Connection, ReceivedMessage } from '../../transport/connection.js';
import type { TranscriptOptions } from '../../transport/transcript.js';
import type { HttpListener } from '../../transport/http/index.js';
import { serveStdio, type StdioServerConnection } from '../../transport/stdio/server.js';
import type { WebTransportServer, WtBindingReadings } from '../../transport/webtransport/index.js';
import { isEncodingName, type EncodingName } from '../../wire/json-codec.js';
import { WEBTRANSPORT_FAULTS } from './binding-faults.js';
import { HTTP_FAULTS, httpFaultOptions } from './binding-http.js';
import type { WebTransportBinding } from './binding.js';
import { CORE_TOOLS } from './core/tools.js';
import { MockServerError, UnknownFaultError, closestNames, type ActiveFaults, type FaultDefinition, type ServerExtension } from './extension.js';
import { FASTWORKFLOW_FAULTS, FW_FAULT } from './fastworkflow/faults.js';
import type { FastWorkflowReadings } from './fastworkflow/readings.js';
import { CORE_FAULTS } from './faults.js';
import { FLOW_FAULTS, flowExtension, flowReadings, loadShippedWizards, loadWizard, type FlowExtensionOptions, type Wizard } from './flow/index.js';
import { isMockReadings, MOCK_READINGS, type MockReadings } from './readings.js';
import { createMockServer, type MockServerOptions } from './server.js';

export type MockTransport = 'wt' | 'http' | 'stdio';
export const MOCK_TRANSPORTS: readonly MockTransport[] = ['wt', 'http', 'stdio'];

/** Limits the server advertises and enforces. */
export interface MockServerLimits {
  /** Largest message accepted: the WebTransport maxMessageSize, the HTTP POST body, the stdio line. */
  maxMessageSize?: number;
  /** WebTransport: execution streams a client may have open at once. */
  maxConcurrentStreams?: number;
  /** WebTransport: advertise and accept datagrams. Default true. */
  datagramsSupported?: boolean;
  /** Sessions open at once, WebTransport or Streamable HTTP (more are refused with 429). Default 64. */
  maxSessions?: number;
  /** WebTransport: a session not READY (initialize answered) this long after it opened is closed; 0: never. Default 30000 ms. */
  handshakeTimeoutMs?: number;
  /** A session (WebTransport or Streamable HTTP) where nothing crossed this long, with nothing in flight, is closed; 0: never. Default 600000 ms. */
  idleTimeoutMs?: number;
}

export interface StartMockServerOptions {
  transport: MockTransport;
  /** Default 127.0.0.1 (wt, http). */
  host?: string;
  /** Default 0: the OS picks a free port (wt, http). */
  port?: number;
  /** PEM certificate and key files (wt); both or neither. Default: a fresh self-signed certificate. */
  cert?: string;
  key?: string;
  /** Encodings the WebTransport server speaks, preferred first. Default ["cbor", "json"]. */
  encodings?: readonly string[];
  /** HTTP version under WebTransport (wt). Default 2; 3 needs the optional native addon (Http3UnavailableError otherwise). */
  http?: 2 | 3;
  limits?: MockServerLimits;
  /** Wizard files served besides the shipped ones. */
  wizards?: readonly string[];
  /** Serve the shipped wizards (wizards/*.json). Default true. */
  shippedWizards?: boolean;
  /** Serve the FastWorkflow profile. Default: on for http, off otherwise. */
  fastworkflow?: boolean;
  /** FastWorkflow conversation directory. Default: a temporary directory removed by close(). */
  storeDir?: string;
  /** Fault names to switch on (UnknownFaultError, listing the closest names, for a name no catalog has). */
  faults?: Iterable<string>;
  /**
   * The readings of the profile the server takes (src/peer/server/readings.ts): 'recommended'
   * (default) or 'alternate', another allowed reading wherever the documents leave a choice.
   */
  readings?: MockReadings;
  /** Log every message: true writes to stderr, a function gets each line. */
  log?: boolean | ((line: string) => void);
  /** More MCP Flow engine options (readings of the profile, limits, timeouts). */
  flow?: Omit<FlowExtensionOptions, 'wizards' | 'plainTools'>;
  /** Single reading switches of the WebTransport binding over the preset's (transport/webtransport/readings.ts), for a reading the presets do not take. */
  bindingReadings?: Partial<WtBindingReadings>;
  /** Single FastWorkflow reading switches over the preset's (fastworkflow/readings.ts), for a reading the presets do not take. */
  fastworkflowReadings?: Partial<FastWorkflowReadings>;
  /** More mock server options (serverInfo, protocol versions...). */
  server?: Omit<MockServerOptions, 'extensions' | 'faults'>;
  /** stdio only: the streams to serve instead of this process's stdin and stdout. */
  stdio?: { stdin: Readable; stdout: Writable };
  /**
   * What each session's transcript keeps (`--kept-message-bytes` sets maxMessageBytes): by default a
   * ring of 1000 entries and 4 MiB per session, each message whole up to 64 KiB (larger: its size,
   * SHA-256 and first bytes), so a long-running mock stays bounded whatever its clients send.
   */
  transcript?: Pick<TranscriptOptions, 'maxMessageBytes' | 'maxEntries' | 'maxBytes'>;
}

/** Each session's transcript of the mock, unless `transcript` says otherwise. */
const SESSION_TRANSCRIPT = { maxEntries: 1000, maxBytes: 4 * 1024 * 1024 } as const;

export interface RunningMockServer {
  /** https://host:port/mcp (wt), http://host:port/mcp (http), or stdio: (stdio). */
  readonly url: string;
  readonly transport: MockTransport;
  /** SHA-256 of the certificate, hex (wt only), for `serverCertificateHashes`. */
  readonly certificateHash?: string;
  readonly faults: ActiveFaults;
  /** The readings of the profile it takes. */
  readonly readings: MockReadings;
  /** Every fault this server can switch on. */
  readonly catalog: readonly FaultDefinition[];
  /** Names of every tool served (core, wizards, FastWorkflow). */
  readonly tools: readonly string[];
  /** Names of the interactive tools (wizards). */
  readonly wizards: readonly string[];
  /** The FastWorkflow conversation directory, when FastWorkflow is served. */
  readonly storeDir?: string;
  /** Resolves when the server has stopped: close() was called, or (stdio) stdin ended. */
  readonly done: Promise<void>;
  /** Closes every session, stops listening and removes a temporary store. Idempotent. */
  close(): Promise<void>;
}

/** An option value startMockServer cannot run with; `option` names it as the command line spells it. */
export class MockServerOptionError extends MockServerError {
  readonly option: string;
  constructor(option: string, message: string) {
    super('MOCK_SERVER_OPTION', `${option}: ${message}`);
    this.option = option;
  }
}

/** A known fault of a part this server does not serve (e.g. a FastWorkflow fault without FastWorkflow). */
export class FaultNotServedError extends MockServerError {
  readonly fault: string;
  constructor(fault: string, why: string) {
    super('FAULT_NOT_SERVED', `fault ${JSON.stringify(fault)} ${why}`);
    this.fault = fault;
  }
}

/** Which part of the server each fault belongs to. */
export type FaultLayer = 'core' | 'flow' | 'fastworkflow' | 'webtransport' | 'http';

export interface CatalogEntry extends FaultDefinition {
  layer: FaultLayer;
}

/** Every fault the assembled mock server knows, whatever it serves. */
export function mockServerFaultCatalog(): CatalogEntry[] {
  const tag = (layer: FaultLayer, faults: readonly FaultDefinition[]) => faults.map((fault) => ({ ...fault, layer }));
  return [
    ...tag('core', CORE_FAULTS),
    ...tag('flow', FLOW_FAULTS),
    ...tag('fastworkflow', FASTWORKFLOW_FAULTS),
    ...tag('webtransport', WEBTRANSPORT_FAULTS),
    ...tag('http', HTTP_FAULTS),
  ];
}

function positiveInteger(option: string, value: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isSafeInteger(value) || value <= 0) throw new MockServerOptionError(option, `must be a positive integer, got ${String(value)}`);
  return value;
}

function nonNegativeInteger(option: string, value: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isSafeInteger(value) || value < 0) throw new MockServerOptionError(option, `must be a non-negative integer (milliseconds, 0: never), got ${String(value)}`);
  return value;
}

function checkOptions(options: StartMockServerOptions): { encodings: EncodingName[]; port: number; host: string } {
  if (!MOCK_TRANSPORTS.includes(options.transport)) {
    throw new MockServerOptionError('transport', `must be one of ${MOCK_TRANSPORTS.join(', ')}, got ${JSON.stringify(options.transport)}`);
  }
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new MockServerOptionError('port', `must be an integer in 0..65535, got ${String(options.port)}`);
  const host = options.host ?? '127.0.0.1';
  if (host === '') throw new MockServerOptionError('host', 'must not be empty');
  if ((options.cert === undefined) !== (options.key === undefined)) {
    throw new MockServerOptionError(options.cert === undefined ? 'cert' : 'key', 'give --cert and --key together (or neither, for a self-signed certificate)');
  }
  const encodings = [...(options.encodings ?? ['cbor', 'json'])];
  if (encodings.length === 0) throw new MockServerOptionError('encoding-preference', 'name at least one encoding (json, cbor)');
  for (const name of encodings) {
    if (!isEncodingName(name)) throw new MockServerOptionError('encoding-preference', `unknown encoding ${JSON.stringify(name)} (known: cbor, json)`);
  }
  if (new Set(encodings).size !== encodings.length) throw new MockServerOptionError('encoding-preference', `names an encoding twice: ${encodings.join(',')}`);
  positiveInteger('max-message-size', options.limits?.maxMessageSize);
  positiveInteger('max-concurrent-streams', options.limits?.maxConcurrentStreams);
  positiveInteger('max-sessions', options.limits?.maxSessions);
  const kept = options.transcript?.maxMessageBytes;
  if (kept !== undefined && !(Number.isSafeInteger(kept) && kept >= 0)) {
    throw new MockServerOptionError('kept-message-bytes', `must be a whole number of bytes (0 or more), got ${String(kept)}`);
  }
  nonNegativeInteger('handshake-timeout', options.limits?.handshakeTimeoutMs);
  nonNegativeInteger('idle-timeout', options.limits?.idleTimeoutMs);
  if (options.readings !== undefined && !isMockReadings(options.readings)) {
    throw new MockServerOptionError('readings', `must be one of ${MOCK_READINGS.join(', ')}, got ${JSON.stringify(options.readings)}`);
  }
  return { encodings: encodings as EncodingName[], port, host };
}

/** Checks the fault names against the whole catalog, then against the parts this server serves. */
function checkFaults(names: readonly string[], served: ReadonlySet<FaultLayer>, transport: MockTransport): void {
  const catalog = mockServerFaultCatalog();
  const byName = new Map(catalog.map((entry) => [entry.name, entry]));
  for (const name of names) {
    const entry = byName.get(name);
    if (!entry) throw new UnknownFaultError(name, closestNames(name, byName.keys()));
    if (!served.has(entry.layer)) {
      const why =
        entry.layer === 'fastworkflow'
          ? 'belongs to FastWorkflow, which this server does not serve (it is on by default with --transport http)'
          : `belongs to the ${entry.layer} layer, which --transport ${transport} does not serve`;
      throw new FaultNotServedError(name, why);
    }
  }
}

/** Starts the mock server on one transport; rejects with a typed error naming a bad option. */
export async function startMockServer(options: StartMockServerOptions): Promise<RunningMockServer> {
  const { encodings, port, host } = checkOptions(options);
  const readings = options.readings ?? 'recommended';
  const faultNames = [...(options.faults ?? [])];
  const fastworkflowOn = options.fastworkflow ?? options.transport === 'http';
  const served = new Set<FaultLayer>(['core', 'flow', ...(fastworkflowOn ? (['fastworkflow'] as const) : []), ...(options.transport === 'wt' ? (['webtransport'] as const) : []), ...(options.transport === 'http' ? (['http'] as const) : [])]);
  checkFaults(faultNames, served, options.transport);

  const wizards: Wizard[] = [...(options.shippedWizards === false ? [] : loadShippedWizards()), ...(options.wizards ?? []).map((file) => loadWizard(file))];

  let storeDir: string | undefined;
  let temporaryStore = false;
  if (fastworkflowOn) {
    storeDir = options.storeDir ?? mkdtempSync(join(tmpdir(), 'mcp-flow-mock-store-'));
    temporaryStore = options.storeDir === undefined;
  }
  const removeStore = () => {
    if (temporaryStore && storeDir !== undefined) rmSync(storeDir, { recursive: true, force: true });
  };

  try {
    const extensions: ServerExtension[] = [];
    // Each transport's listener and FastWorkflow are loaded only when served: the stdio mock,
    // started once per case, loads neither WebTransport nor HTTP.
    const fastworkflow = fastworkflowOn ? (await import('./fastworkflow/extension.js')).fastWorkflowExtension({ storeDir: storeDir!, faults: faultNames, readings, ...options.fastworkflowReadings }) : undefined;
    const plainTools = () => [...CORE_TOOLS.map((tool) => tool.name), ...(fastworkflow?.tools.map((tool) => tool.name) ?? [])];
    // The readings preset first, explicit engine options over it (src/peer/server/flow/options.ts, flowReadings).
    const flow = flowExtension({ ...flowReadings(readings, options.transport), ...options.flow, wizards, plainTools });
    extensions.push(flow);
    if (fastworkflow) extensions.push(fastworkflow);
    // The WebTransport binding: an extension (its faults, the initialize result's `transport`) that the listener attaches to each session.
    let binding: WebTransportBinding | undefined;
    if (options.transport === 'wt') {
      const { webTransportBinding } = await import('./binding.js');
      binding = webTransportBinding({ faults: { has: (name) => faultNames.includes(name) } });
      extensions.push(binding);
    }
    // The Streamable HTTP listener's faults (listener options), in the server's catalog.
    if (options.transport === 'http') extensions.push({ name: 'streamable-http', faults: HTTP_FAULTS });
    const server = createMockServer({
      readings,
      ...options.server,
      // FastWorkflow serves its own prompts and resources; the core keeps its tools.
      ...(fastworkflow && options.server?.core !== false ? { core: { ...options.server?.core, prompts: false, resources: false } } : {}),
      extensions,
      faults: faultNames,
    });
    const tools = [...(server.extensions.flatMap((extension) => (extension.tools ?? []).map((tool) => tool.name)))];
    const log = messageLogger(options.log);
    const sessions = new Set<Promise<void>>();
    let nextConnection = 1;
    const serve = (connection: Connection) => {
      const id = `${options.transport}#${nextConnection++}`;
      log?.(`${id} opened`);
      const running = server
        .serve(log ? loggedConnection(connection, id, log) : connection)
        .catch((error: unknown) => log?.(`${id} ended with an error: ${error instanceof Error ? error.message : String(error)}`))
        .finally(() => {
          sessions.delete(running);
          log?.(`${id} closed`);
        });
      sessions.add(running);
    };

    let stop: () => Promise<void>;
    let url: string;
    let certificateHash: string | undefined;
    let ended!: () => void;
    const done = new Promise<void>((resolve) => (ended = resolve));
    const limits = options.limits ?? {};
    const transcript = { ...SESSION_TRANSCRIPT, ...options.transcript };

    if (options.transport === 'wt') {
      const { bindingReadings, listenWebTransport } = await import('../../transport/webtransport/index.js');
      const listener: WebTransportServer = await listenWebTransport({
        host,
        port,
        http: options.http ?? 2,
        ...(options.cert !== undefined ? { tls: { certFile: options.cert, keyFile: options.key! } } : {}),
        encodings,
        limits: {
          ...(limits.maxMessageSize !== undefined ? { maxMessageSize: limits.maxMessageSize } : {}),
          ...(limits.maxConcurrentStreams !== undefined ? { maxConcurrentStreams: limits.maxConcurrentStreams } : {}),
          ...(limits.handshakeTimeoutMs !== undefined ? { handshakeTimeoutMs: limits.handshakeTimeoutMs } : {}),
          ...(limits.idleTimeoutMs !== undefined ? { idleTimeoutMs: limits.idleTimeoutMs } : {}),
        },
        datagramsSupported: limits.datagramsSupported ?? true,
        ...(limits.maxSessions !== undefined ? { maxSessions: limits.maxSessions } : {}),
        ...binding!.listener,
        // The binding's readings follow the server's (WT-CONN-4, WT-FRAME-2/5/7, WT-ENC-5/7, WT-EXEC-1/2/3, WT-DGRAM-*, WT-ID-2/3, WT-CANCEL-2, WT-SEC-1/5).
        readings: bindingReadings(readings, options.bindingReadings),
        transcript,
        onConnection: serve,
      });
      url = listener.url;
      certificateHash = listener.certificateHash;
      stop = () => listener.close();
    } else if (options.transport === 'http') {
      const { listenHttp } = await import('../../transport/http/index.js');
      const { withFastWorkflowHttpFront } = await import('./fastworkflow/http-front.js');
      const listener: HttpListener = await listenHttp({
        host,
        port,
        // FAULT endpoint-not-at-mcp (FW-TRANSPORT-2).
        ...(server.faults.has(FW_FAULT.endpointNotAtMcp) ? { path: '/api' } : {}),
        ...(limits.maxMessageSize !== undefined ? { maxBodyBytes: limits.maxMessageSize } : {}),
        ...(limits.maxSessions !== undefined ? { maxSessions: limits.maxSessions } : {}),
        ...(limits.idleTimeoutMs !== undefined ? { sessionIdleTimeoutMs: limits.idleTimeoutMs } : {}),
        // The MCP-Protocol-Version header is judged by the versions the server core speaks (CORE-VER-8).
        ...(options.server?.protocolVersions !== undefined ? { supportedProtocolVersions: options.server.protocolVersions } : {}),
        ...httpFaultOptions(server.faults),
        transcript,
        onSession: serve,
      });
      // FastWorkflow's transport faults and readings sit in front of the listener (the listener itself when neither is on).
      const front = { unknownSession: fastworkflow?.readings.unknownSession ?? 404 };
      const endpoint = await withFastWorkflowHttpFront(listener, server.faults, front).catch(async (error: unknown) => {
        await listener.close();
        throw error;
      });
      url = endpoint.url;
      stop = () => endpoint.close();
    } else {
      const connection: StdioServerConnection = serveStdio({
        ...(options.stdio ?? {}),
        ...(limits.maxMessageSize !== undefined ? { maxLineBytes: limits.maxMessageSize } : {}),
        transcript,
      });
      url = 'stdio:';
      serve(connection);
      void connection.closed.then(() => void close());
      stop = () => connection.close('mock server closing');
    }

    let closing: Promise<void> | undefined;
    const close = () =>
      (closing ??= (async () => {
        try {
          await stop();
          await Promise.allSettled([...sessions]);
        } finally {
          removeStore();
          ended();
        }
      })());

    return {
      url,
      transport: options.transport,
      ...(certificateHash !== undefined ? { certificateHash } : {}),
      faults: server.faults,
      readings,
      catalog: server.catalog,
      tools,
      wizards: wizards.map((wizard) => wizard.name),
      ...(storeDir !== undefined ? { storeDir } : {}),
      done,
      close,
    };
  } catch (error) {
    removeStore();
    throw error;
  }
}

// ---------------------------------------------------------------------------------------------
// The message log

function messageLogger(option: StartMockServerOptions['log']): ((line: string) => void) | undefined {
  if (option === undefined || option === false) return undefined;
  if (option === true) return (line) => void process.stderr.write(`${line}\n`);
  return option;
}

const jsonReplacer = (_key: string, value: unknown) => (typeof value === 'bigint' ? `${value}n` : value instanceof Uint8Array ? `<${value.byteLength} bytes>` : value);

/** One log line: direction, connection id, what the message is (request/response/notification, method, id), encoding, body as JSON. */
export function describeMessage(direction: 'in' | 'out', connectionId: string, message: unknown, encoding?: string): string {
  const arrow = direction === 'in' ? '<-' : '->';
  const m = (typeof message === 'object' && message !== null ? message : {}) as Record<string, unknown>;
  let what: string;
  if (Array.isArray(message)) what = `batch of ${message.length}`;
  else if (typeof m['method'] === 'string') what = 'id' in m ? `request ${m['method']} id=${JSON.stringify(m['id'], jsonReplacer)}` : `notification ${m['method']}`;
  else if ('result' in m) what = `response id=${JSON.stringify(m['id'], jsonReplacer)}`;
  else if ('error' in m) what = `error id=${JSON.stringify(m['id'], jsonReplacer)}`;
  else what = 'message';
  let body: string;
  try {
    body = JSON.stringify(message, jsonReplacer) ?? String(message);
  } catch {
    body = String(message);
  }
  return `${connectionId} ${arrow} ${what}${encoding ? ` [${encoding}]` : ''} ${body}`;
}

/** The connection as the server sees it, logging each message taken or sent. */
function loggedConnection(connection: Connection, id: string, log: (line: string) => void): Connection {
  const encodingOut = () => connection.webtransport?.encoding;
  return new Proxy(connection, {
    get(target, property) {
      if (property === 'send') {
        return async (message: unknown) => {
          const encoding = encodingOut();
          await target.send(message);
          log(describeMessage('out', id, message, encoding));
        };
      }
      if (property === 'next') {
        return async (...args: Parameters<Connection['next']>) => {
          const received: ReceivedMessage = await target.next(...args);
          log(describeMessage('in', id, received.message, received.encoding));
          return received;
        };
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
