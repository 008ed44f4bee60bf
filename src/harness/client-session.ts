// The harness as a server, for client runs: the standard answer to a client's initialize, and the
// wait for that request. Cases build on these (suites/support/scripted-server.ts); discovery uses them too.
import { resultResponse } from '../protocol/jsonrpc.js';
import { isProtocolVersion, LATEST_PROTOCOL_VERSION } from '../protocol/methods.js';
import type { Connection, ReceivedMessage, ServerTransportCapabilities } from '../transport/connection.js';
import { WebTransportSessionConnection } from '../transport/webtransport/session.js';
import { isRecord } from '../wire/index.js';

export const HARNESS_SERVER_INFO = { name: 'mcp-flow-conformance', version: '0.1.0' } as const;

export interface InitializeResultOptions {
  /** Default: the version the client asked for when it is a known one, else the latest. */
  protocolVersion?: string;
  /** Merged over `{ tools: {} }`; a member set to undefined is left out (`{ tools: undefined }` declares no tools). */
  capabilities?: Record<string, unknown>;
  serverInfo?: Record<string, unknown>;
  instructions?: string;
  /**
   * WebTransport: members replacing those of the negotiated `transport` section (the first offered
   * encoding the harness speaks, this session's limits), e.g. `{ encoding: 'json' }` or
   * `{ maxMessageSize: 1024 }`. Ignored on other transports.
   */
  transport?: Partial<ServerTransportCapabilities>;
}

/** Is this received message the client's initialize request? */
export function isInitializeRequest(received: ReceivedMessage): boolean {
  const message = received.message;
  return isRecord(message) && message.method === 'initialize' && 'id' in message;
}

/** The `result` of the standard answer to `request` (the client's initialize request message). */
export function initializeResult(connection: Connection, request: unknown, options: InitializeResultOptions = {}): Record<string, unknown> {
  const params = isRecord(request) && isRecord(request.params) ? request.params : {};
  const asked = params.protocolVersion;
  const result: Record<string, unknown> = {
    protocolVersion: options.protocolVersion ?? (isProtocolVersion(asked) ? asked : LATEST_PROTOCOL_VERSION),
    capabilities: Object.fromEntries(Object.entries({ tools: {}, ...options.capabilities }).filter(([, value]) => value !== undefined)),
    serverInfo: options.serverInfo ?? { ...HARNESS_SERVER_INFO },
    ...(options.instructions !== undefined ? { instructions: options.instructions } : {}),
  };
  if (connection instanceof WebTransportSessionConnection) {
    result.transport = { ...connection.negotiate(), ...options.transport };
  }
  return result;
}

/** Sends the standard initialize answer (a success response) to `request`. */
export async function answerInitialize(connection: Connection, request: unknown, options: InitializeResultOptions = {}): Promise<Record<string, unknown>> {
  const result = initializeResult(connection, request, options);
  const id = isRecord(request) ? request.id : null;
  await connection.send(resultResponse(id, result));
  return result;
}
