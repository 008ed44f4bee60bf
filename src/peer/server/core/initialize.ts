// initialize: the client's params checked (CORE-LIFE-2), the protocol version negotiated
// (CORE-VER-2, -3), both sides' capabilities recorded, and the result assembled: protocolVersion,
// the capabilities of the core and every extension, serverInfo, instructions and, over
// WebTransport, the binding's `transport` member (WT-INIT-3). A second initialize is refused or
// repeated as the readings say (CORE-LIFE-8).
import { JSONRPC_ERROR } from '../../../protocol/error-codes.js';
import { LATEST_PROTOCOL_VERSION, type ProtocolVersion } from '../../../protocol/methods.js';
import type { Connection } from '../../../transport/connection.js';
import type { ActiveFaults, ServerExtension, ServerSessionContext } from '../extension.js';
import { CORE_FAULT as F } from '../faults.js';
import { INITIALIZE_RESULT_REWRITES } from './fault-hooks.js';
import { errorObject, isRecord, type JsonRpcErrorObject } from './jsonrpc.js';
import { MOCK_META, type CoreReadings } from './readings.js';
import type { SessionState } from './state.js';

export interface InitializeOptions {
  connection: Connection;
  state: SessionState;
  faults: ActiveFaults;
  readings: CoreReadings;
  extensions: readonly ServerExtension[];
  /** Protocol versions this server supports, oldest first. */
  protocolVersions: readonly ProtocolVersion[];
  serverInfo: { name: string; version: string; title?: string };
  instructions?: string;
  /** Declare the logging utility. */
  logging: boolean;
  /** Whether any extension serves tools. */
  hasTools: boolean;
  /** What the extensions' capabilities() see. */
  context: ServerSessionContext;
}

/** The answer to initialize: a result or an error object. */
export type InitializeAnswer = { result: Record<string, unknown> } | { error: JsonRpcErrorObject };

/** The capabilities of the core and every extension, for the negotiated session. */
export function computeCapabilities(options: InitializeOptions): Record<string, unknown> {
  const capabilities: Record<string, unknown> = {};
  if (options.logging) capabilities['logging'] = {};
  if (options.hasTools) capabilities['tools'] = { listChanged: false };
  for (const extension of options.extensions) {
    const declared = extension.capabilities?.(options.context);
    if (declared) mergeInto(capabilities, declared);
  }
  // A capability the documents do not define, shaped as its own extension likes (rule 4: noted, never failed).
  if (options.readings.extensionMembers) capabilities['x-mcp-flow-conformance-readings'] = 'alternate';
  return capabilities;
}

/** Negotiates the session for an initialize request (the state is initialized before the answer goes out). */
export function initialize(params: unknown, options: InitializeOptions): InitializeAnswer {
  const { state, faults, readings } = options;
  // A second initialize (CORE-LIFE-8): refused, or answered with the session as negotiated; the fault renegotiates (a reset).
  const reset = state.initialized && faults.has(F.secondInitializeAccepted);
  if (state.initialized && !reset && readings.secondInitialize === 'refuse') {
    return { error: errorObject(JSONRPC_ERROR.InvalidRequest, 'Invalid Request: the session is already initialized') };
  }
  const problem = initializeProblem(params);
  if (problem) {
    const code = faults.has(F.wrongErrorCodeInvalidParams) ? JSONRPC_ERROR.InternalError : JSONRPC_ERROR.InvalidParams;
    return { error: errorObject(code, `Invalid params: ${problem}`) };
  }
  const p = params as Record<string, unknown>;
  const connection = options.connection;
  const wt = connection.kind === 'webtransport';
  // FAULT wt-unknown-encoding-refused (WT-ENC-11): an encoding name it does not know is refused, not ignored.
  const unknownEncoding = wt && faults.has(F.wtUnknownEncodingRefused) ? unknownEncodingIn(p['transport']) : undefined;
  if (unknownEncoding !== undefined) {
    return { error: errorObject(JSONRPC_ERROR.InvalidParams, `Invalid params: unknown encoding ${JSON.stringify(unknownEncoding)} in transport.encodings`) };
  }
  const requested = p['protocolVersion'] as string;
  const supported = options.protocolVersions;
  const latest = supported[supported.length - 1] ?? LATEST_PROTOCOL_VERSION;
  const isSupported = (supported as readonly string[]).includes(requested);
  // An unsupported version (CORE-VER-3): another supported one is offered, or (the other reading) refused as MCP's lifecycle example does.
  if (!isSupported && !state.initialized && readings.unsupportedVersion === 'refuse' && !faults.has(F.unsupportedVersionEchoed)) {
    return { error: errorObject(JSONRPC_ERROR.InvalidParams, 'Unsupported protocol version', { supported: [...supported], requested }) };
  }
  // FAULT older-version-offered (CORE-VER-4): the oldest, not the latest, instead of an unsupported version.
  const instead = !isSupported && faults.has(F.olderVersionOffered) ? (supported[0] ?? latest) : latest;
  const version: ProtocolVersion = isSupported && !faults.has(F.wrongProtocolVersion) ? (requested as ProtocolVersion) : instead;
  const fresh = !state.initialized || reset;
  if (fresh) {
    state.protocolVersion = version;
    state.clientCapabilities = isRecord(p['capabilities']) ? p['capabilities'] : {};
    const info = p['clientInfo'] as Record<string, unknown>;
    state.clientInfo = { name: info['name'] as string, version: info['version'] as string };
    state.capabilities = computeCapabilities(options);
  }
  const echoed = !isSupported && faults.has(F.unsupportedVersionEchoed) ? requested : undefined;
  const result: Record<string, unknown> = { protocolVersion: echoed ?? (fresh ? version : state.protocolVersion), capabilities: state.capabilities };
  result['serverInfo'] = { ...options.serverInfo };
  // An extension member next to serverInfo's named ones (rule 4: a note, not a failure).
  if (readings.extensionMembers) (result['serverInfo'] as Record<string, unknown>)['x-mcp-flow-conformance-readings'] = 'alternate';
  if (options.instructions !== undefined) result['instructions'] = options.instructions;
  if (readings.extensionMembers) result['_meta'] = { ...MOCK_META };
  // Members an extension adds on this connection: the WebTransport binding's `transport` (WT-INIT-3).
  if (!(wt && faults.has(F.wtTransportMissing))) {
    for (const extension of options.extensions) Object.assign(result, extension.initializeResult?.(connection));
  }
  // Initialized before the answer goes out, so that the next message already sees it.
  state.initialized = true;
  return { result: faults.rewrite(INITIALIZE_RESULT_REWRITES, result) };
}

/** Why initialize params are unusable (CORE-LIFE-2), or undefined. */
function initializeProblem(params: unknown): string | undefined {
  if (!isRecord(params)) return 'initialize needs params';
  if (typeof params['protocolVersion'] !== 'string') return 'initialize params need a string protocolVersion';
  if (!isRecord(params['capabilities'])) return 'initialize params need a capabilities object';
  const info = params['clientInfo'];
  if (!isRecord(info) || typeof info['name'] !== 'string' || typeof info['version'] !== 'string') {
    return 'initialize params need clientInfo with string name and version';
  }
  return undefined;
}

/** The first name in the initialize params' transport.encodings that is neither json nor cbor. */
function unknownEncodingIn(transport: unknown): string | undefined {
  const encodings = isRecord(transport) && Array.isArray(transport['encodings']) ? transport['encodings'] : [];
  const unknown = encodings.find((name) => name !== 'json' && name !== 'cbor');
  return unknown === undefined ? undefined : String(unknown);
}

/** Deep merge of capability objects (later extensions add to earlier ones). */
function mergeInto(target: Record<string, unknown>, source: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(source)) {
    const existing = target[key];
    if (isRecord(existing) && isRecord(value)) mergeInto(existing, value);
    else target[key] = isRecord(value) ? { ...value } : value;
  }
}
