// JSON-RPC error codes per layer. The same number means different things in different layers
// (-32001 is SESSION_NOT_FOUND in MCP Flow, Invalid Stream Reference in the WebTransport binding
// and ResourceNotFound in 002); docs/profile.md conflict C-01 decides which meaning applies, and
// `interpretErrorCode` implements that decision.
import { UnknownLayerError } from './errors.js';

export const ERROR_LAYERS = ['jsonrpc', 'mcp', 'flow', 'binding'] as const;
/** jsonrpc: JSON-RPC 2.0; mcp: MCP core (002 and the official spec); flow: MCP Flow (000); binding: WebTransport binding (001). */
export type ErrorLayer = (typeof ERROR_LAYERS)[number];

export interface ErrorCodeDefinition {
  readonly code: number;
  /** The name the defining document uses. */
  readonly name: string;
  readonly layer: ErrorLayer;
  readonly meaning: string;
  /** Where it is defined: seed file and section, or the official MCP specification. */
  readonly source: string;
  /** Requirement IDs that produce or interpret it. */
  readonly requirements: readonly string[];
}

/** JSON-RPC 2.0 codes; they keep their meaning in every layer (CORE-ERR-1). */
export const JSONRPC_ERROR = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
} as const;

/** MCP core codes: 002's ErrorCode enum and the official specification's additions. */
export const MCP_ERROR = {
  /** 002 ErrorCode.ResourceNotFound. */
  ResourceNotFound: -32001,
  /** 002 ErrorCode.ResourceAccessDenied; the official specification uses -32002 for resource not found. */
  ResourceAccessDenied: -32002,
  /** Official MCP (resources): resource not found. */
  OfficialResourceNotFound: -32002,
  /** 002 ErrorCode.ToolExecutionError. */
  ToolExecutionError: -32003,
  /** Official MCP 2025-11-25 URLElicitationRequiredError. */
  UrlElicitationRequired: -32042,
} as const;

/** MCP Flow codes (000 §Error Codes). */
export const FLOW_ERROR = {
  SESSION_NOT_FOUND: -32001,
  SESSION_EXPIRED: -32002,
  INVALID_STATE_TRANSITION: -32003,
  VALIDATION_FAILED: -32004,
  TIMEOUT: -32005,
  ALREADY_CANCELLED: -32006,
  NOT_INTERACTIVE: -32007,
} as const;

/** WebTransport binding codes (001 §4.2 and §6). */
export const BINDING_ERROR = {
  StreamLimitExceeded: -32000,
  /** 001 §6 answers a request cancelled with `$/cancel` with -32000 "Cancelled". */
  Cancelled: -32000,
  /** LSP's RequestCancelled, accepted in place of -32000 for cancelled requests (WT-CANCEL-2). */
  RequestCancelled: -32800,
  InvalidStreamReference: -32001,
  StreamInjection: -32002,
  EncodingMismatch: -32003,
  DatagramNotSupported: -32004,
} as const;

const S0 = '000_73a733fb938bdd0a.txt';
const S1 = '001_b966f71271833902.txt';
const S2 = '002_a41331816123f095.txt';

function def(
  layer: ErrorLayer,
  code: number,
  name: string,
  meaning: string,
  source: string,
  requirements: readonly string[],
): ErrorCodeDefinition {
  return Object.freeze({ layer, code, name, meaning, source, requirements: Object.freeze([...requirements]) });
}

/** Every code the profile knows, grouped by layer. */
export const ERROR_CODES: readonly ErrorCodeDefinition[] = Object.freeze([
  def('jsonrpc', -32700, 'Parse error', 'the message could not be parsed (bad JSON or CBOR, bad UTF-8, trailing bytes)', `${S2} §Error Codes; ${S1} §4.1`, ['CORE-RPC-8', 'WT-FRAME-4', 'WT-FRAME-5']),
  def('jsonrpc', -32600, 'Invalid Request', 'not a valid request: missing fields, empty or oversized frame, unknown transport type, message before initialize', `${S2} §Error Codes; ${S1} §4.1`, ['CORE-RPC-9', 'WT-FRAME-2', 'WT-FRAME-3', 'WT-INIT-2', 'WT-CONN-4']),
  def('jsonrpc', -32601, 'Method not found', 'the method does not exist or is not offered', `${S2} §Error Codes; ${S1} §4.1`, ['CORE-RPC-10', 'CORE-CAP-3']),
  def('jsonrpc', -32602, 'Invalid params', 'bad parameter types or values', `${S2} §Error Codes; ${S1} §4.1`, ['CORE-RPC-11', 'FLOW-START-3']),
  def('jsonrpc', -32603, 'Internal error', 'server-side failure', `${S2} §Error Codes; ${S1} §4.1`, ['CORE-ERR-2']),
  def('mcp', -32001, 'ResourceNotFound', 'resource not found (002 ErrorCode enum)', `${S2} §Error Codes`, ['CORE-RES-2']),
  def('mcp', -32002, 'Resource not found', 'resource not found (official MCP resources/read)', `${S2} §Error Codes; official MCP specification, resources`, ['CORE-RES-2']),
  def('mcp', -32002, 'ResourceAccessDenied', 'access to the resource denied (002 ErrorCode enum)', `${S2} §Error Codes`, ['CORE-RES-2']),
  def('mcp', -32003, 'ToolExecutionError', 'the tool failed (002 ErrorCode enum; the official specification reports this as a result with isError)', `${S2} §Error Codes`, ['CORE-TOOLS-5']),
  def('mcp', -32042, 'URL elicitation required', 'the server needs the client to complete a URL elicitation first (2025-11-25)', `${S2} §Error Codes; official MCP schema 2025-11-25 URLElicitationRequiredError`, []),
  def('flow', -32001, 'SESSION_NOT_FOUND', 'session ID not found', `${S0} §Error Codes`, ['FLOW-ERR-4', 'FLOW-STATE-5', 'FLOW-CANCEL-3']),
  def('flow', -32002, 'SESSION_EXPIRED', 'session timed out', `${S0} §Error Codes`, ['FLOW-TIMEOUT-1']),
  def('flow', -32003, 'INVALID_STATE_TRANSITION', 'invalid state change', `${S0} §Error Codes`, ['FLOW-SM-4', 'FLOW-RESPOND-5']),
  def('flow', -32004, 'VALIDATION_FAILED', 'input validation failed', `${S0} §Error Codes`, ['FLOW-RESPOND-3']),
  def('flow', -32005, 'TIMEOUT', 'operation timed out', `${S0} §Error Codes`, ['FLOW-ERR-1']),
  def('flow', -32006, 'ALREADY_CANCELLED', 'session already cancelled', `${S0} §Error Codes`, ['FLOW-CANCEL-2', 'FLOW-RESPOND-6']),
  def('flow', -32007, 'NOT_INTERACTIVE', "server doesn't support interactive mode", `${S0} §Error Codes`, ['FLOW-CAP-7']),
  def('binding', -32000, 'Stream Limit Exceeded', 'too many concurrent execution streams', `${S1} §4.2 MCP-Flow Specific Errors`, ['WT-LIMIT-1']),
  def('binding', -32000, 'Cancelled', 'the request was cancelled with $/cancel', `${S1} §6. Cancellation Example`, ['WT-CANCEL-2', 'WT-ERR-2']),
  def('binding', -32800, 'RequestCancelled', 'the request was cancelled (LSP code, accepted instead of -32000)', `${S1} §6. Cancellation Example; LSP RequestCancelled`, ['WT-CANCEL-2']),
  def('binding', -32001, 'Invalid Stream Reference', "a ref/stream streamTag doesn't match any open stream", `${S1} §4.2 MCP-Flow Specific Errors`, ['WT-EXEC-3']),
  def('binding', -32002, 'Stream Injection', "the request ID in a stream header doesn't match an in-flight request", `${S1} §4.2 MCP-Flow Specific Errors`, ['WT-EXEC-2']),
  def('binding', -32003, 'Encoding Mismatch', 'message not in the negotiated encoding', `${S1} §4.2 MCP-Flow Specific Errors`, ['WT-ENC-5']),
  def('binding', -32004, 'Datagram Not Supported', 'datagram received although the server said datagramsSupported: false', `${S1} §4.2 MCP-Flow Specific Errors`, ['WT-DGRAM-5']),
]);

function checkLayer(layer: string): asserts layer is ErrorLayer {
  if (!(ERROR_LAYERS as readonly string[]).includes(layer)) throw new UnknownLayerError(layer, ERROR_LAYERS);
}

/**
 * The definitions of `code` in `layer`. The JSON-RPC codes belong to every layer; several
 * definitions come back where one layer gives a code two meanings (mcp -32002, binding -32000).
 */
export function errorCodeDefinitions(layer: ErrorLayer, code: number): ErrorCodeDefinition[] {
  checkLayer(layer);
  return ERROR_CODES.filter((d) => d.code === code && (d.layer === layer || d.layer === 'jsonrpc'));
}

/** What a code is called in a layer; codes no document names get their JSON-RPC range. */
export function nameErrorCode(code: number, layer: ErrorLayer): string {
  checkLayer(layer);
  if (!Number.isInteger(code)) return `invalid code ${String(code)} (not an integer, as JSON-RPC codes must be)`;
  const definitions = errorCodeDefinitions(layer, code);
  if (definitions.length > 0) return definitions.map((d) => d.name).join(' / ');
  if (code >= -32099 && code <= -32000) return 'Server error (implementation-defined)';
  if (code >= -32768 && code <= -32000) return 'Reserved (JSON-RPC)';
  return 'Application-defined';
}

/** Methods whose errors take the MCP Flow meanings. */
export function isFlowMethod(method: string): boolean {
  return method.startsWith('interaction.') || method === 'capabilities';
}

export interface ErrorContext {
  /** The method of the request the error answers; absent when the error has id null. */
  method?: string;
  /** The request had been cancelled with `$/cancel` before this answer arrived. */
  cancelled?: boolean;
  /** The request carried a `ref/stream` content item (so -32001 is Invalid Stream Reference). */
  carriedStreamRef?: boolean;
}

export interface ErrorInterpretation {
  layer: ErrorLayer;
  name: string;
  definitions: ErrorCodeDefinition[];
}

/**
 * Decides which layer's meaning a code has, by which request it answers (docs/profile.md C-01):
 * JSON-RPC codes are always JSON-RPC; an answer to a request cancelled with `$/cancel` is the
 * binding's Cancelled; an error with id null comes from the binding (frames, streams,
 * datagrams); an answer to `interaction.*` or `capabilities` is MCP Flow; -32001 answering a
 * request that carried a `ref/stream` item is the binding's Invalid Stream Reference; any other
 * answer is MCP core, falling back to the binding for codes only the binding defines (-32000).
 */
export function interpretErrorCode(code: number, context: ErrorContext = {}): ErrorInterpretation {
  const pick = (layer: ErrorLayer, filter: (d: ErrorCodeDefinition) => boolean = () => true): ErrorInterpretation | undefined => {
    const definitions = ERROR_CODES.filter((d) => d.code === code && d.layer === layer && filter(d));
    return definitions.length > 0 ? { layer, name: definitions.map((d) => d.name).join(' / '), definitions } : undefined;
  };
  const standard = pick('jsonrpc');
  if (standard) return standard;
  if (context.cancelled) {
    const cancelled = pick('binding', (d) => d.name === 'Cancelled' || d.name === 'RequestCancelled');
    if (cancelled) return cancelled;
  }
  if (context.carriedStreamRef && code === BINDING_ERROR.InvalidStreamReference) {
    const reference = pick('binding');
    if (reference) return reference;
  }
  const order: ErrorLayer[] =
    context.method === undefined ? ['binding'] : isFlowMethod(context.method) ? ['flow', 'binding'] : ['mcp', 'binding'];
  for (const layer of order) {
    const found = pick(layer, (d) => d.name !== 'Cancelled' && d.name !== 'RequestCancelled');
    if (found) return found;
  }
  return { layer: order[0] as ErrorLayer, name: nameErrorCode(code, order[0] as ErrorLayer), definitions: [] };
}
