// Options of the MCP Flow engine, their defaults, and the readings of the profile the mock server
// can be switched to (so that the suite can show each accepted reading passes): one switch per
// reading, and `flowReadings` for the presets of src/peer/server/readings.ts.
import type { ValidationOptions } from '../../../protocol/prompt-validation.js';
import type { MockReadings } from '../readings.js';
import { FlowOptionsError } from './errors.js';
import { TOKEN_FORMS, type TokenForm } from './tokens.js';
import type { Wizard } from './wizard.js';

/** Time as the engine sees it; tests pass a fake clock. */
export interface FlowClock {
  now(): number;
  /** Calls `callback` after `ms` milliseconds; returns a function that cancels it. */
  setTimer(ms: number, callback: () => void): () => void;
}

export const systemClock: FlowClock = {
  now: () => Date.now(),
  setTimer(ms, callback) {
    const timer = setTimeout(callback, ms);
    timer.unref?.();
    return () => clearTimeout(timer);
  },
};

export interface FlowLimits {
  /** Requests naming one session within `windowMs` (FLOW-RATE-1). */
  requestsPerWindow: number;
  windowMs: number;
  /** Prompts (re-prompts included) one session may send (FLOW-RATE-4). */
  maxPrompts: number;
  /** Live sessions one connection may hold (FLOW-RATE-2, per connection). */
  maxSessionsPerConnection: number;
  /** Longest a session may live, active or not (FLOW-RATE-3). */
  maxDurationMs: number;
}

export interface StatelessOptions {
  secret: Uint8Array | string;
  form?: TokenForm;
}

export interface FlowExtensionOptions {
  /** Interactive tools (default: the shipped wizards). Names must be unique. */
  wizards?: readonly Wizard[];
  /** false: a Flow-aware server with interactive mode off (every interaction.* gets -32007). Default true. */
  interactive?: boolean;
  /** Where initialize advertises `interactive` (C-14); default 'experimental'. */
  capabilityLocation?: 'experimental' | 'top-level' | 'method-only';
  /** The state interaction.start reports with an initialPrompt (C-03); default 'waiting_user'. */
  initialPromptState?: 'waiting_user' | 'idle';
  /** Answer a rejected value with error -32004 instead of the accepted:false result (C-15). Default false. */
  rejectWithError?: boolean;
  /** Send a new interaction.prompt after a rejected value (FLOW-RESPOND-4 reading 1). Default true. */
  reprompt?: boolean;
  /** Refuse a session id used from another connection with -32001 (FLOW-SEC-4 reading 1). Default true. */
  bindSessionsToConnection?: boolean;
  /** With interactive mode off, the code answering interaction.*: -32007 NOT_INTERACTIVE, or -32601 as a plain MCP server would (FLOW-CAP-7). Default -32007. */
  notInteractiveCode?: number;
  /** The code refusing interaction.start for a tool the server does not have (FLOW-START-4). Default -32602. */
  unknownToolCode?: number;
  /** The code refusing a client's interaction.prompt, .continue or .complete (FLOW-CAP-9): -32601, or -32001 for a session it does not have (it looks the session up first). Default -32601. */
  wrongDirectionCode?: number;
  /** A `timeout` that is not a positive integer: 'refuse' with -32602, or 'lenient' (the default timeout applies, a numeric string is read) (FLOW-START-9). Default 'refuse'. */
  invalidTimeout?: 'refuse' | 'lenient';
  /** How the first prompt of a session without initialPrompt travels (FLOW-START-8). Default 'prompt'. */
  firstPromptVia?: 'prompt' | 'continue';
  /** Send interaction.continue as a notification, not a request (FLOW-PROMPT-12 reading 3, C-11). Default false. */
  continueAsNotification?: boolean;
  /** Answer an accepted value with `validation: {valid: true}` (FLOW-RESPOND-2 reading 1). Default true. */
  acceptedValidation?: boolean;
  /** interaction.respond without response.value: 'invalid-params' (-32602), or 'validate' it as a missing answer (FLOW-RESPOND-7). Default 'invalid-params'. */
  missingValue?: 'invalid-params' | 'validate';
  /** The code answering interaction.respond on a cancelled session (FLOW-RESPOND-6). Default -32006. */
  respondWhenCancelled?: 'already-cancelled' | 'invalid-state';
  /** interaction.cancel on a completed or errored session (FLOW-CANCEL-4, C-23): refused with -32003, refused with {"cancelled": false}, or cancelled ("Any -> CANCELLED" read literally). Default 'refuse'. */
  cancelFinished?: 'refuse' | 'refuse-with-result' | 'cancel';
  /** The turnId of a session's first history entry (FLOW-STATE-2). Default 0. */
  historyTurnBase?: number;
  /** Record a rejected exchange in history as a turn of its own (FLOW-VALID-10 reading 2). Default false. */
  recordRejectedTurns?: boolean;
  /** Log level of the timeout warning (C-22: 'warning' recommended; another level is "any other message naming the session"). Default 'warning'. */
  timeoutWarningLevel?: 'warning' | 'notice';
  /** Prompts carry a member 000 does not name (an `_meta` extension object) (rule 4: noted, not failed). Default false. */
  extensionMembers?: boolean;
  /** The code refusing a tampered stateless token (FLOW-STATELESS-4, C-19). Default -32001. */
  tamperedTokenCode?: number;
  /**
   * Stateless mode (000 Appendix B): the HMAC-SHA256 secret (at least 32 bytes), and how the token
   * is written: one base64url string (default, FLOW-STATELESS-2 reading 1) or base64url segments
   * joined by a dot (reading 2: no single base64 string).
   */
  stateless?: StatelessOptions;
  /** Inactivity timeout when interaction.start gives none (000: 5 minutes). */
  defaultTimeoutMs?: number;
  /** How long before expiry the warning goes out; default a fifth of the session's timeout. */
  timeoutWarningLeadMs?: number;
  /** How long expired sessions still answer -32002, and finished ones their terminal state, before they are gone (-32001); 0: gone at once. */
  retentionMs?: number;
  limits?: Partial<FlowLimits>;
  /** Names of tools other extensions serve without interaction (interaction.start on them gets -32007). */
  plainTools?: Iterable<string> | (() => Iterable<string>);
  /** Answer validation readings of C-31. */
  validation?: ValidationOptions;
  /** How long to wait for the client to answer interaction.prompt/continue/complete. */
  clientRequestTimeoutMs?: number;
  clock?: FlowClock;
}

export interface ResolvedFlowOptions {
  interactive: boolean;
  capabilityLocation: 'experimental' | 'top-level' | 'method-only';
  initialPromptState: 'waiting_user' | 'idle';
  rejectWithError: boolean;
  reprompt: boolean;
  bindSessionsToConnection: boolean;
  notInteractiveCode: number;
  unknownToolCode: number;
  wrongDirectionCode: number;
  invalidTimeout: 'refuse' | 'lenient';
  firstPromptVia: 'prompt' | 'continue';
  continueAsNotification: boolean;
  acceptedValidation: boolean;
  missingValue: 'invalid-params' | 'validate';
  respondWhenCancelled: 'already-cancelled' | 'invalid-state';
  cancelFinished: 'refuse' | 'refuse-with-result' | 'cancel';
  historyTurnBase: number;
  recordRejectedTurns: boolean;
  timeoutWarningLevel: 'warning' | 'notice';
  extensionMembers: boolean;
  tamperedTokenCode: number;
  stateless: StatelessOptions | undefined;
  defaultTimeoutMs: number;
  timeoutWarningLeadMs: number | undefined;
  retentionMs: number;
  limits: FlowLimits;
  plainTools: () => Iterable<string>;
  validation: ValidationOptions;
  clientRequestTimeoutMs: number | undefined;
  clock: FlowClock;
}

export const DEFAULT_TIMEOUT_MS = 300_000;

export const DEFAULT_LIMITS: FlowLimits = Object.freeze({
  requestsPerWindow: 120,
  windowMs: 10_000,
  maxPrompts: 200,
  maxSessionsPerConnection: 64,
  maxDurationMs: 3_600_000,
});

function nonNegativeInteger(option: string, value: number | undefined, fallback: number): number {
  if (value === 0) return 0;
  return positiveInteger(option, value, fallback);
}

function positiveInteger(option: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value <= 0) throw new FlowOptionsError(option, `must be a positive integer, got ${String(value)}`);
  return value;
}

export function resolveOptions(options: FlowExtensionOptions): ResolvedFlowOptions {
  const limits = options.limits ?? {};
  const secret = options.stateless?.secret;
  if (options.stateless !== undefined) {
    const length = typeof secret === 'string' ? Buffer.byteLength(secret) : (secret?.length ?? 0);
    if (length < 32) throw new FlowOptionsError('stateless.secret', `needs at least 32 bytes for HMAC-SHA256, got ${length}`);
    const form = options.stateless.form;
    if (form !== undefined && !TOKEN_FORMS.includes(form)) throw new FlowOptionsError('stateless.form', `must be one of ${TOKEN_FORMS.join(', ')}, got ${JSON.stringify(form)}`);
  }
  const plain = options.plainTools;
  const timeoutWarningLeadMs =
    options.timeoutWarningLeadMs === undefined ? undefined : positiveInteger('timeoutWarningLeadMs', options.timeoutWarningLeadMs, 1);
  return {
    interactive: options.interactive ?? true,
    capabilityLocation: options.capabilityLocation ?? 'experimental',
    initialPromptState: options.initialPromptState ?? 'waiting_user',
    rejectWithError: options.rejectWithError ?? false,
    reprompt: options.reprompt ?? true,
    bindSessionsToConnection: options.bindSessionsToConnection ?? true,
    notInteractiveCode: options.notInteractiveCode ?? -32007,
    unknownToolCode: options.unknownToolCode ?? -32602,
    wrongDirectionCode: options.wrongDirectionCode ?? -32601,
    invalidTimeout: options.invalidTimeout ?? 'refuse',
    firstPromptVia: options.firstPromptVia ?? 'prompt',
    continueAsNotification: options.continueAsNotification ?? false,
    acceptedValidation: options.acceptedValidation ?? true,
    missingValue: options.missingValue ?? 'invalid-params',
    respondWhenCancelled: options.respondWhenCancelled ?? 'already-cancelled',
    cancelFinished: options.cancelFinished ?? 'refuse',
    historyTurnBase: options.historyTurnBase ?? 0,
    recordRejectedTurns: options.recordRejectedTurns ?? false,
    timeoutWarningLevel: options.timeoutWarningLevel ?? 'warning',
    extensionMembers: options.extensionMembers ?? false,
    tamperedTokenCode: options.tamperedTokenCode ?? -32001,
    stateless: options.stateless,
    defaultTimeoutMs: positiveInteger('defaultTimeoutMs', options.defaultTimeoutMs, DEFAULT_TIMEOUT_MS),
    timeoutWarningLeadMs,
    retentionMs: nonNegativeInteger('retentionMs', options.retentionMs, 600_000),
    limits: {
      requestsPerWindow: positiveInteger('limits.requestsPerWindow', limits.requestsPerWindow, DEFAULT_LIMITS.requestsPerWindow),
      windowMs: positiveInteger('limits.windowMs', limits.windowMs, DEFAULT_LIMITS.windowMs),
      maxPrompts: positiveInteger('limits.maxPrompts', limits.maxPrompts, DEFAULT_LIMITS.maxPrompts),
      maxSessionsPerConnection: positiveInteger('limits.maxSessionsPerConnection', limits.maxSessionsPerConnection, DEFAULT_LIMITS.maxSessionsPerConnection),
      maxDurationMs: positiveInteger('limits.maxDurationMs', limits.maxDurationMs, DEFAULT_LIMITS.maxDurationMs),
    },
    plainTools: typeof plain === 'function' ? plain : () => plain ?? [],
    validation: options.validation ?? {},
    clientRequestTimeoutMs:
      options.clientRequestTimeoutMs === undefined ? undefined : positiveInteger('clientRequestTimeoutMs', options.clientRequestTimeoutMs, 1),
    clock: options.clock ?? systemClock,
  };
}

/** The transports the presets tell apart (src/peer/server/start.ts's MockTransport). */
export type ReadingsTransport = 'wt' | 'http' | 'stdio';

/**
 * The engine options of a readings preset (docs/profile.md §2): none for 'recommended' (the
 * defaults are the recommended readings); for 'alternate', another accepted reading wherever the
 * catalog lists one. Where a requirement accepts more than two readings the transports take
 * different ones, so that the three alternate self-test runs together take them all:
 * C-14's `interactive` top-level (wt, stdio) or only in the capabilities method (http); C-23's
 * cancel of a completed session taken literally (wt, stdio) or refused with {"cancelled": false}
 * (http); finished and expired sessions cleaned up at once (stdio: FLOW-STATE-6, -RESPOND-6,
 * -CANCEL-2, -CANCEL-4, -TIMEOUT-1 answered -32001).
 */
export function flowReadings(readings: MockReadings, transport: ReadingsTransport): FlowExtensionOptions {
  if (readings === 'recommended') return {};
  return {
    capabilityLocation: transport === 'http' ? 'method-only' : 'top-level',
    initialPromptState: 'idle',
    rejectWithError: true,
    reprompt: false,
    bindSessionsToConnection: false,
    notInteractiveCode: -32601,
    unknownToolCode: -32601,
    wrongDirectionCode: -32001,
    invalidTimeout: 'lenient',
    firstPromptVia: 'continue',
    continueAsNotification: true,
    acceptedValidation: false,
    missingValue: 'validate',
    respondWhenCancelled: 'invalid-state',
    cancelFinished: transport === 'http' ? 'refuse-with-result' : 'cancel',
    historyTurnBase: 1,
    recordRejectedTurns: true,
    timeoutWarningLevel: 'notice',
    extensionMembers: true,
    tamperedTokenCode: -32602,
    ...(transport === 'stdio' ? { retentionMs: 0 } : {}),
    validation: { lengthUnit: 'utf16', numericStrings: true, anchoredPattern: true, booleanWords: true, emptyTextIsValue: true },
  };
}
