// The readings of the profile the mock server's core takes where the documents allow more than one
// (docs/profile.md §2, rule 2; each switch names the requirement whose `accepts` lists it). The
// 'recommended' preset is the reference mock; 'alternate' takes another allowed reading of every
// switch. Tests that need one reading alone override single switches.
import { JSONRPC_ERROR } from '../../../protocol/error-codes.js';
import { MockServerError } from '../extension.js';
import type { MockReadings } from '../readings.js';

export interface CoreReadings {
  /** CORE-LIFE-5 (outside WebTransport): a request before initialize is refused with `beforeInitializeCode` ('error') or the connection is closed ('close'). */
  beforeInitialize: 'error' | 'close';
  /** CORE-LIFE-5: the code of that refusal: -32600 (recommended) or -32601 (the method "is not available" yet). */
  beforeInitializeCode: number;
  /** CORE-LIFE-13 (outside WebTransport): a ping before initialize is answered with {} or refused with `beforeInitializeCode`. */
  pingBeforeInitialize: 'answer' | 'refuse';
  /** CORE-LIFE-8: a second initialize is refused with -32600, or answered with the negotiated session's result (nothing reset). */
  secondInitialize: 'refuse' | 'repeat';
  /** CORE-VER-3: an unsupported version is answered with another supported one, or refused with -32602 "Unsupported protocol version". */
  unsupportedVersion: 'offer' | 'refuse';
  /** CORE-CAP-3: the code refusing a request of a feature the server did not declare: -32601 (recommended) or -32600. */
  undeclaredFeatureCode: number;
  /** CORE-RPC-9: the id of an Invalid Request error: the request's when readable ('echo'), or always null. */
  invalidRequestId: 'echo' | 'null';
  /** CORE-RPC-9: serve a request whose only flaw is a missing or wrong jsonrpc member as if it were valid. */
  lenientJsonrpc: boolean;
  /** CORE-RPC-9: a malformed response (both or neither of result and error) is refused with -32600 or ignored. */
  malformedResponse: 'refuse' | 'ignore';
  /** CORE-RPC-2: params given as a positional array are refused with -32602, or ignored (the request served as if they were absent). */
  positionalParams: 'refuse' | 'ignore';
  /** C-30: JSON-RPC batches are accepted under 2025-03-26 only, or under every version. */
  batches: '2025-03-26' | 'every-version';
  /** CORE-TOOLS-2: the code of tools/call for an unknown tool: -32602 (official) or -32601. */
  unknownToolCode: number;
  /** CORE-TOOLS-4: arguments that do not match the inputSchema get -32602, or (under 2025-11-25) a result with isError: true. */
  invalidArguments: 'error' | 'tool-error-2025-11-25';
  /** CORE-TOOLS-4: an argument member the inputSchema forbids (additionalProperties: false) is rejected, or ignored (CORE-RPC-15). */
  forbiddenArgumentMembers: 'reject' | 'ignore';
  /** CORE-RES-2: a URI the server does not have: -32002 (official), or -32001 (002's enum) with -32602 for a scheme it does not serve. */
  resourceNotFound: 'official' | 'seed';
  /** CORE-RES-7: every listed resource may be subscribed to, or only those that change (subscribing to the others is refused). */
  subscribe: 'any' | 'changing-only';
  /** CORE-PROMPTS-3: the code of prompts/get for an unknown prompt: -32602 (recommended) or -32601. */
  unknownPromptCode: number;
  /**
   * Rule 4 (extra members are notes): results carry a `_meta` member of the mock's own, the
   * initialize result an extra serverInfo member and an extension capability whose value is no object.
   */
  extensionMembers: boolean;
}

export const RECOMMENDED_CORE_READINGS: Readonly<CoreReadings> = Object.freeze({
  beforeInitialize: 'error',
  beforeInitializeCode: JSONRPC_ERROR.InvalidRequest,
  pingBeforeInitialize: 'answer',
  secondInitialize: 'refuse',
  unsupportedVersion: 'offer',
  undeclaredFeatureCode: JSONRPC_ERROR.MethodNotFound,
  invalidRequestId: 'echo',
  lenientJsonrpc: false,
  malformedResponse: 'refuse',
  positionalParams: 'refuse',
  batches: '2025-03-26',
  unknownToolCode: JSONRPC_ERROR.InvalidParams,
  invalidArguments: 'error',
  forbiddenArgumentMembers: 'reject',
  resourceNotFound: 'official',
  subscribe: 'any',
  unknownPromptCode: JSONRPC_ERROR.InvalidParams,
  extensionMembers: false,
});

/**
 * Another allowed reading of every switch. A request before initialize closes the connection, so
 * -32601 (the other code) shows on a ping before initialize, which these readings refuse.
 */
export const ALTERNATE_CORE_READINGS: Readonly<CoreReadings> = Object.freeze({
  beforeInitialize: 'close',
  beforeInitializeCode: JSONRPC_ERROR.MethodNotFound,
  pingBeforeInitialize: 'refuse',
  secondInitialize: 'repeat',
  unsupportedVersion: 'refuse',
  undeclaredFeatureCode: JSONRPC_ERROR.InvalidRequest,
  invalidRequestId: 'null',
  lenientJsonrpc: true,
  malformedResponse: 'ignore',
  positionalParams: 'ignore',
  batches: 'every-version',
  unknownToolCode: JSONRPC_ERROR.MethodNotFound,
  invalidArguments: 'tool-error-2025-11-25',
  forbiddenArgumentMembers: 'ignore',
  resourceNotFound: 'seed',
  subscribe: 'changing-only',
  unknownPromptCode: JSONRPC_ERROR.MethodNotFound,
  extensionMembers: true,
});

/** A reading switch set to a value it does not have. */
export class CoreReadingsError extends MockServerError {
  readonly reading: string;
  constructor(reading: string, message: string) {
    super('CORE_READINGS', `core reading ${reading}: ${message}`);
    this.reading = reading;
  }
}

const CODES = ['beforeInitializeCode', 'undeclaredFeatureCode', 'unknownToolCode', 'unknownPromptCode'] as const;

/** The preset's switches with `overrides` applied; a code that is no integer is refused. */
export function resolveCoreReadings(preset: MockReadings = 'recommended', overrides: Partial<CoreReadings> = {}): CoreReadings {
  const readings: CoreReadings = { ...(preset === 'alternate' ? ALTERNATE_CORE_READINGS : RECOMMENDED_CORE_READINGS), ...overrides };
  for (const key of CODES) {
    if (!Number.isInteger(readings[key])) throw new CoreReadingsError(key, `must be an integer JSON-RPC error code, got ${String(readings[key])}`);
  }
  return readings;
}

/** The `_meta` member the alternate readings add to results (a name of the mock's own: rule 4's extension member). */
export const MOCK_META = Object.freeze({ 'dev.mcp-flow-conformance/readings': 'alternate' });
