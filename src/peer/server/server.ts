// The reference mock server: createMockServer({ extensions, faults, ... }).serve(connection) runs
// one MCP session over any Connection (WebTransport, Streamable HTTP, stdio, in-memory). The core
// features (tools, resources, prompts, completions) are an extension like any other.
import { randomUUID } from 'node:crypto';
import type { Connection } from '../../transport/connection.js';
import { PROTOCOL_VERSIONS, isProtocolVersion, type ProtocolVersion } from '../../protocol/methods.js';
import { createCoreExtension, type CoreFeatureOptions } from './core/index.js';
import { resolveCoreReadings, type CoreReadings } from './core/readings.js';
import { ServerSession } from './core/session.js';
import { MockServerError, type ActiveFaults, type FaultDefinition, type ServerExtension } from './extension.js';
import { activeFaults, faultCatalog } from './faults.js';
import type { MockReadings } from './readings.js';

export interface MockServerOptions {
  /** Extensions served besides the core (e.g. the MCP Flow engine). */
  extensions?: readonly ServerExtension[];
  /** Faults to switch on, by name (UnknownFaultError for a name no catalog has). */
  faults?: Iterable<string>;
  serverInfo?: { name: string; version: string; title?: string };
  instructions?: string;
  /** The built-in features, or false to serve only the extensions. Default: all features. */
  core?: CoreFeatureOptions | false;
  /** Supported protocol versions. Default: all four known versions. */
  protocolVersions?: readonly string[];
  /** Declare the logging utility. Default true. */
  logging?: boolean;
  /** Deadline of server-to-client requests, in ms. Default 30000. */
  requestTimeoutMs?: number;
  /** On WebTransport with datagrams, send progress as 0x01 datagrams. Default true. */
  progressDatagrams?: boolean;
  /** The readings of the profile the core takes (src/peer/server/readings.ts). Default 'recommended'. */
  readings?: MockReadings;
  /** Single core reading switches over the preset's (core/readings.ts), for tests that need one reading alone. */
  coreReadings?: Partial<CoreReadings>;
}

/** An option value the server cannot run with. */
export class MockServerConfigError extends MockServerError {
  constructor(message: string) {
    super('MOCK_SERVER_CONFIG', message);
  }
}

export interface MockServer {
  readonly faults: ActiveFaults;
  /** Every fault this server knows (core and extensions). */
  readonly catalog: readonly FaultDefinition[];
  readonly extensions: readonly ServerExtension[];
  /** Serves one MCP session over the connection; resolves when the connection has closed. */
  serve(connection: Connection): Promise<void>;
}

export function createMockServer(options: MockServerOptions = {}): MockServer {
  const readings = resolveCoreReadings(options.readings ?? 'recommended', options.coreReadings);
  const extensions = [...(options.core === false ? [] : [createCoreExtension({ ...options.core, readings })]), ...(options.extensions ?? [])];
  const names = new Set<string>();
  for (const extension of extensions) {
    if (names.has(extension.name)) throw new MockServerConfigError(`two extensions are named ${JSON.stringify(extension.name)}`);
    names.add(extension.name);
  }
  const faults = activeFaults(options.faults ?? [], extensions);
  const versions = [...(options.protocolVersions ?? PROTOCOL_VERSIONS)];
  for (const version of versions) {
    if (!isProtocolVersion(version)) {
      throw new MockServerConfigError(`unknown protocol version ${JSON.stringify(version)} (known: ${PROTOCOL_VERSIONS.join(', ')})`);
    }
  }
  if (versions.length === 0) throw new MockServerConfigError('at least one protocol version must be supported');
  const supported = PROTOCOL_VERSIONS.filter((v) => versions.includes(v)) as ProtocolVersion[];
  const requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
  if (!(requestTimeoutMs > 0)) throw new MockServerConfigError(`requestTimeoutMs must be positive, got ${requestTimeoutMs}`);
  return {
    faults,
    catalog: faultCatalog(extensions),
    extensions,
    async serve(connection) {
      const session = new ServerSession(connection, {
        extensions,
        faults,
        serverInfo: options.serverInfo ?? { name: 'mcp-flow-conformance-mock-server', version: '0.1.0' },
        ...(options.instructions !== undefined ? { instructions: options.instructions } : {}),
        protocolVersions: supported,
        logging: options.logging ?? true,
        requestTimeoutMs,
        progressDatagrams: options.progressDatagrams ?? true,
        connectionId: `${connection.kind}-${randomUUID()}`,
        readings,
      });
      await session.run();
    },
  };
}
