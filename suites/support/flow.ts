// Shared MCP Flow helpers for the server suites (000): start an interaction on a tool discovery
// found, take the session's prompts however they travel (the start result's `initialPrompt`, an
// `interaction.prompt` request, or an `interaction.continue` carrying `nextPrompt`), answer the
// server's requests the way the profile says (FLOW-PROMPT-12, FLOW-SM-8), build valid and invalid
// values for any prompt from its own rules, and run a session to its `interaction.complete`.
//
// The driving helpers record no check: they return what they saw and the cases judge it. A step
// the target breaks while a case is still setting up throws TargetPreconditionError. The judging
// helpers at the end (checkProblems, checkFlowError) record checks only of the requirements the
// caller names, so a case passes only requirements it declares.
//
//   const session = await startInteraction(ctx);                  // interaction.start on interactiveTool(ctx)
//   const first = await firstPrompt(ctx, session);                // initialPrompt or interaction.prompt
//   const answer = await respond(ctx, session, validValue(first.prompt));
//   const run = await runToCompletion(ctx, session);              // every prompt answered, complete acknowledged
//   await walkSession(ctx, session, { visit: (current) => ... }); // the same, with a hook per prompt that may stop
import { randomBytes, randomInt } from 'node:crypto';
import fc from 'fast-check';
import { BoundedMap } from '../../src/common/bounded-map.js';
import { TargetPreconditionError, type CaseContext } from '../../src/harness/index.js';
import type { Problem } from '../../src/judge/index.js';
import { FLOW_ERROR } from '../../src/protocol/error-codes.js';
import { FLOW_METHOD } from '../../src/protocol/methods.js';
import { compilePattern, compileWholePattern, isCalendarDate, validatePromptValue, type FlowPrompt } from '../../src/protocol/prompt-validation.js';
import type { ReceivedMessage } from '../../src/transport/connection.js';
import { isRecord } from '../../src/wire/index.js';
import { interactiveTool, isResponseTo, resultResponse, setupRequest, type Message } from './session.js';

/** Set-up waits (a prompt, the completion) before --timeout-scale (ctx.next applies it). */
export const FLOW_EVENT_MS = 5_000;
/** How long to wait for something that may or may not come (a re-prompt), before --timeout-scale. */
export const FLOW_QUIET_MS = 500;

/** The server-to-client requests of a session (000 §Message Flow). */
export const SESSION_REQUEST_METHODS: readonly string[] = [FLOW_METHOD.prompt, FLOW_METHOD.continue, FLOW_METHOD.complete];

/** An interaction the case started. */
export interface FlowSession {
  sessionId: string;
  toolName: string;
  /** The whole `interaction.start` result. */
  start: Message;
}

/** A server request (or notification) about a session, as received. */
export interface FlowEvent {
  method: string;
  /** The whole message. */
  message: Message;
  /** `params`, or {} when the message had none. */
  params: Message;
  /** The prompt it makes current: `params.prompt` (interaction.prompt) or `params.nextPrompt` (interaction.continue). */
  prompt?: Message;
  /** Whether the helper answered it (requests only, when acknowledging was asked). */
  answered: boolean;
  received: ReceivedMessage;
}

/** Where the current prompt came from. */
export type PromptSource = 'initialPrompt' | 'interaction.prompt' | 'interaction.continue';

export interface CurrentPrompt {
  prompt: Message;
  via: PromptSource;
  /** The request that carried it (absent for initialPrompt). */
  event?: FlowEvent;
}

// ---- starting ----------------------------------------------------------------------------------

export interface StartOptions {
  /** Default: the first interactive tool discovery found. */
  toolName?: string;
  /** More `interaction.start` params (initialParams, context, timeout). */
  params?: Message;
  /** The requirement a failed start breaks (default FLOW-START-2). */
  requirement?: string;
}

/**
 * Sends `interaction.start` and returns the session. No answer, an error, or a result without a
 * non-empty string `sessionId` is a precondition failure (the case cannot go on).
 */
export async function startInteraction(ctx: CaseContext, options: StartOptions = {}): Promise<FlowSession> {
  const requirement = options.requirement ?? 'FLOW-START-2';
  const toolName = options.toolName ?? interactiveTool(ctx);
  const answer = await setupRequest(ctx, FLOW_METHOD.start, { toolName, ...options.params }, requirement);
  const result = answer.result;
  if (!isRecord(result) || typeof result.sessionId !== 'string' || result.sessionId === '') {
    throw new TargetPreconditionError(`interaction.start for ${JSON.stringify(toolName)} gave no session`, { requirement, actual: answer.error ?? result });
  }
  return { sessionId: result.sessionId, toolName, start: result };
}

/** Character classes an id keeps when a character is changed (so hex stays hex, base64 stays base64). */
const ID_CLASSES = ['0123456789', 'abcdef', 'ghijklmnopqrstuvwxyz', 'ABCDEF', 'GHIJKLMNOPQRSTUVWXYZ'];

/**
 * A session id the server never issued, of the form of `like` (one of its own ids): its last six
 * letters and digits changed within their class (digit, a-f, g-z, A-F, G-Z), so that a server that
 * checks an id's form first still sees a well-formed one (FLOW-ERR-4). Without `like`, a random id.
 */
export function unknownSessionIdLike(like?: string): string {
  if (like === undefined || !/[0-9A-Za-z]/.test(like)) return `session_conformance_unknown_${randomBytes(12).toString('hex')}`;
  const chars = [...like];
  let changed = 0;
  for (let at = chars.length - 1; at >= 0 && changed < 6; at--) {
    const kind = ID_CLASSES.find((c) => c.includes(chars[at] as string));
    if (kind === undefined) continue;
    const others = [...kind].filter((c) => c !== chars[at]);
    chars[at] = others[randomInt(others.length)] as string;
    changed++;
  }
  return chars.join('');
}

/** Whether the target declares stateless mode (`features.statefulSessions: false`, C-19). */
export function declaresStatelessMode(ctx: Pick<CaseContext, 'discovery'>): boolean {
  const features = isRecord(ctx.discovery.flowCapabilities?.features) ? ctx.discovery.flowCapabilities.features : undefined;
  return features?.statefulSessions === false;
}

/**
 * The codes that refuse an id of the server's form that it never issued: -32001; in stateless mode
 * such an id is a token the server did not sign, which C-19 lets it refuse with -32602 too.
 */
export function unknownSessionCodes(ctx: Pick<CaseContext, 'discovery'>): number[] {
  return declaresStatelessMode(ctx) ? [FLOW_ERROR.SESSION_NOT_FOUND, -32602] : [FLOW_ERROR.SESSION_NOT_FOUND];
}

// ---- the server's requests -----------------------------------------------------------------------

function paramsOf(message: Message): Message {
  return isRecord(message.params) ? message.params : {};
}

/**
 * True for an `interaction.prompt`, `.continue` or `.complete` from the target about `sessionId`.
 * A message without a string `sessionId` counts as the session's too (a server that drops the id
 * breaks FLOW-PROMPT-11 / FLOW-PROMPT-1, which the cases check on the message itself).
 */
export function isSessionRequest(message: unknown, sessionId: string, methods: readonly string[] = SESSION_REQUEST_METHODS): message is Message {
  if (!isRecord(message) || typeof message.method !== 'string' || !methods.includes(message.method)) return false;
  const id = paramsOf(message).sessionId;
  return id === sessionId || typeof id !== 'string';
}

/** The answer the profile gives each server request: {acknowledged: true}, or {success, finalResult} for complete. */
export function profileAnswer(event: Pick<FlowEvent, 'method' | 'params'>): Message {
  if (event.method === FLOW_METHOD.complete) {
    const result = isRecord(event.params.result) ? event.params.result : {};
    return { success: true, ...(result.data !== undefined ? { finalResult: result.data } : {}) };
  }
  return { acknowledged: true };
}

export interface NextEventOptions {
  /** Default FLOW_EVENT_MS; before --timeout-scale (ctx.next applies it). */
  timeoutMs?: number;
  /** The wait is a window in which nothing is owed (what it watches for, as the result's `waits` names it). */
  silence?: string;
  /** Answer the request the profile's way (default true). Notifications are never answered. */
  acknowledge?: boolean;
  /** Methods to wait for (default all three). */
  methods?: readonly string[];
}

/**
 * The next `interaction.prompt` / `.continue` / `.complete` about the session, answered as the
 * profile says unless `acknowledge` is false. Rejects with the connection's timeout error when
 * none comes in time (see `expectEvent` for a precondition failure instead).
 */
export async function nextFlowEvent(ctx: CaseContext, sessionId: string, options: NextEventOptions = {}): Promise<FlowEvent> {
  const methods = options.methods ?? SESSION_REQUEST_METHODS;
  const received = await ctx.next((r) => isSessionRequest(r.message, sessionId, methods), {
    timeoutMs: options.timeoutMs ?? FLOW_EVENT_MS,
    ...(options.silence !== undefined ? { silence: options.silence } : {}),
  });
  const message = received.message as Message;
  const params = paramsOf(message);
  const method = message.method as string;
  const carried = method === FLOW_METHOD.prompt ? params.prompt : method === FLOW_METHOD.continue ? params.nextPrompt : undefined;
  const event: FlowEvent = { method, message, params, answered: false, received, ...(isRecord(carried) ? { prompt: carried } : {}) };
  if ((options.acknowledge ?? true) && 'id' in message) {
    await ctx.connection.send(resultResponse(message.id, profileAnswer(event)));
    event.answered = true;
  }
  return event;
}

/** Like nextFlowEvent, but nothing in time is a precondition failure naming `requirement`. */
export async function expectEvent(ctx: CaseContext, sessionId: string, what: string, requirement?: string, options: NextEventOptions = {}): Promise<FlowEvent> {
  try {
    return await nextFlowEvent(ctx, sessionId, options);
  } catch (error) {
    if (ctx.signal.aborted) throw error;
    throw new TargetPreconditionError(`${what} never came for session ${sessionId} (${error instanceof Error ? error.message : String(error)})`, {
      ...(requirement !== undefined ? { requirement } : {}),
    });
  }
}

/**
 * Waits a short while for a session request; undefined when none came. For checks that something
 * does NOT happen, and for optional re-prompts. The server sends session requests on its own
 * schedule (000: the workflow runs on the server), so no order proves one will not come: the wait
 * is a window from the target's speed (ctx.quietMs(FLOW_QUIET_MS)), or `timeoutMs` (before
 * --timeout-scale) when given.
 */
export async function maybeFlowEvent(ctx: CaseContext, sessionId: string, options: NextEventOptions = {}): Promise<FlowEvent | undefined> {
  try {
    return await nextFlowEvent(ctx, sessionId, {
      ...options,
      ...(options.timeoutMs === undefined ? { timeoutMs: ctx.quietMs(FLOW_QUIET_MS), silence: options.silence ?? 'a session request' } : {}),
    });
  } catch (error) {
    if (ctx.signal.aborted) throw error;
    return undefined;
  }
}

/**
 * The next prompt of the session after an accepted value (or at the start without initialPrompt):
 * progress-only `interaction.continue`s are acknowledged and skipped. Returns the prompt event, or
 * the `interaction.complete` event when the session finished instead.
 */
export async function nextPromptOrComplete(ctx: CaseContext, sessionId: string, requirement?: string, options: NextEventOptions = {}): Promise<FlowEvent> {
  for (;;) {
    const event = await expectEvent(ctx, sessionId, 'the next prompt or interaction.complete', requirement, options);
    if (event.method === FLOW_METHOD.complete || event.prompt !== undefined) return event;
    if (event.method === FLOW_METHOD.prompt) {
      throw new TargetPreconditionError(`interaction.prompt for session ${sessionId} carried no prompt object`, { requirement: 'FLOW-PROMPT-1', actual: event.message });
    }
  }
}

/** The session's first prompt: the start result's `initialPrompt`, else the first prompt request (FLOW-START-8). */
export async function firstPrompt(ctx: CaseContext, session: FlowSession, requirement = 'FLOW-START-8'): Promise<CurrentPrompt> {
  if (isRecord(session.start.initialPrompt)) return { prompt: session.start.initialPrompt, via: 'initialPrompt' };
  const event = await nextPromptOrComplete(ctx, session.sessionId, requirement);
  if (event.prompt === undefined) {
    throw new TargetPreconditionError(`session ${session.sessionId} completed before it asked anything`, { requirement, actual: event.message });
  }
  return { prompt: event.prompt, via: event.method as PromptSource, event };
}

// ---- client requests -------------------------------------------------------------------------

/** Sends `interaction.respond` with `value` and returns the whole answer; no answer is a precondition failure. */
export async function respond(ctx: CaseContext, session: FlowSession | string, value: unknown, requirement?: string): Promise<Message> {
  const sessionId = typeof session === 'string' ? session : session.sessionId;
  return setupRequest(ctx, FLOW_METHOD.respond, { sessionId, response: { value, timestamp: Date.now() } }, requirement);
}

/** `interaction.getState` result, or a precondition failure (answer-less or an error). */
export async function getState(ctx: CaseContext, sessionId: string, requirement = 'FLOW-STATE-1'): Promise<Message> {
  const answer = await setupRequest(ctx, FLOW_METHOD.getState, { sessionId }, requirement);
  if (!isRecord(answer.result)) throw new TargetPreconditionError(`interaction.getState for ${sessionId} gave no result`, { requirement, actual: answer.error });
  return answer.result;
}

/** How the target answered a value. */
export type RespondOutcome = 'accepted' | 'rejected' | 'rejected-with-error' | 'error' | 'other';

/**
 * accepted: result.accepted true; rejected: result.accepted false (FLOW-RESPOND-3 reading 1);
 * rejected-with-error: error -32004 (reading 2, C-15); error: any other error; other: anything else.
 */
export function respondOutcome(answer: Message | undefined): RespondOutcome {
  if (answer === undefined) return 'other';
  if (isRecord(answer.result)) {
    if (answer.result.accepted === true) return 'accepted';
    if (answer.result.accepted === false) return 'rejected';
    return 'other';
  }
  if (isRecord(answer.error)) return answer.error.code === FLOW_ERROR.VALIDATION_FAILED ? 'rejected-with-error' : 'error';
  return 'other';
}

/** The `validation` object of a rejection, in either form (result or -32004 error data). */
export function rejectionValidation(answer: Message | undefined): Message | undefined {
  if (answer === undefined) return undefined;
  if (isRecord(answer.result) && isRecord(answer.result.validation)) return answer.result.validation;
  if (isRecord(answer.error) && isRecord(answer.error.data) && isRecord(answer.error.data.validation)) return answer.error.data.validation;
  return undefined;
}

// ---- values ------------------------------------------------------------------------------------

/** A prompt as the local validator reads it (unknown shapes fall back to text without rules). */
export function asFlowPrompt(prompt: Message): FlowPrompt {
  const rules = isRecord(prompt.validation) ? prompt.validation : {};
  return {
    type: (typeof prompt.type === 'string' ? prompt.type : 'text') as FlowPrompt['type'],
    message: typeof prompt.message === 'string' ? prompt.message : '',
    ...(Array.isArray(prompt.choices) ? { choices: prompt.choices.filter(isRecord) as unknown as FlowPrompt['choices'] } : {}),
    validation: {
      ...(typeof rules.required === 'boolean' ? { required: rules.required } : {}),
      ...(typeof rules.pattern === 'string' ? { pattern: rules.pattern } : {}),
      ...(typeof rules.min === 'number' ? { min: rules.min } : {}),
      ...(typeof rules.max === 'number' ? { max: rules.max } : {}),
    },
  };
}

/** Whether the profile's validator (C-31, recommended readings) accepts `value` for the prompt; false when it cannot tell. */
export function satisfies(prompt: Message, value: unknown): boolean {
  try {
    return validatePromptValue(asFlowPrompt(prompt), value).valid;
  } catch {
    return false;
  }
}

/** Like `satisfies`, with the pattern matched against the whole value (FLOW-VALID-3 reading 2). */
export function satisfiesWhole(prompt: Message, value: unknown): boolean {
  try {
    return validatePromptValue(asFlowPrompt(prompt), value, { anchoredPattern: true }).valid;
  } catch {
    return false;
  }
}

function rulesOf(prompt: Message): Message {
  return isRecord(prompt.validation) ? prompt.validation : {};
}

function codePoints(s: string): number {
  return [...s].length;
}

function patternOf(prompt: Message): RegExp | undefined {
  const pattern = rulesOf(prompt).pattern;
  if (typeof pattern !== 'string') return undefined;
  try {
    return compilePattern(pattern);
  } catch {
    return undefined;
  }
}

/** The pattern as FLOW-VALID-3's second reading applies it (the whole value must match). */
function wholePatternOf(prompt: Message): RegExp | undefined {
  const pattern = rulesOf(prompt).pattern;
  if (typeof pattern !== 'string') return undefined;
  try {
    return compileWholePattern(pattern);
  } catch {
    return undefined;
  }
}

const TEXT_CANDIDATES = ['Lisbon', 'user@example.com', 'example', 'Conformance', 'abc', 'test_value', 'a1', '12345', 'https://example.com/x', 'x'];

/** Lengthens `s` to `length` code points by repeating one of its characters, keeping `accept(s)`. */
function lengthen(s: string, length: number, accept: (s: string) => boolean): string | undefined {
  const chars = [...(s === '' ? 'a' : s)];
  if (chars.length >= length) return undefined;
  for (let at = 0; at < chars.length; at++) {
    const grown = [...chars.slice(0, at), ...Array<string>(length - chars.length).fill(chars[at] as string), ...chars.slice(at)].join('');
    if (accept(grown)) return grown;
  }
  return undefined;
}

/**
 * Strings the prompt's pattern matches (fixed candidates first, then fast-check's stringMatching
 * with a fixed seed), those the whole pattern matches first: a value both readings of
 * FLOW-VALID-3 take.
 */
function textsMatching(prompt: Message): string[] {
  const re = patternOf(prompt);
  const whole = wholePatternOf(prompt);
  const hints = [prompt.defaultValue, typeof prompt.placeholder === 'string' ? prompt.placeholder.replace(/^(e\.g\.|eg|for example)[:\s]*/i, '') : undefined, prompt.placeholder];
  const candidates = [...hints.filter((h): h is string => typeof h === 'string' && h !== ''), ...TEXT_CANDIDATES];
  if (re === undefined || whole === undefined) return candidates;
  const matching = [...candidates.filter((c) => re.test(c)), ...sampledMatching(whole, re)];
  return [...matching.filter((m) => whole.test(m)), ...matching.filter((m) => !whole.test(m))];
}

/** Samples by pattern: the seed is fixed, so a pattern always gives the same ones (kept, a bounded number). */
const SAMPLES = new BoundedMap<string, readonly string[]>(256);

/** fast-check's strings for the whole pattern, then for the pattern (none for one it cannot generate from). */
function sampledMatching(whole: RegExp, re: RegExp): readonly string[] {
  const key = `${whole.source}\u0000${whole.flags}\u0000${re.source}\u0000${re.flags}`;
  let samples = SAMPLES.get(key);
  if (samples === undefined) {
    const found: string[] = [];
    try {
      found.push(...fc.sample(fc.stringMatching(whole), { seed: 4242, numRuns: 100 }).filter((s) => s !== ''));
      found.push(...fc.sample(fc.stringMatching(re), { seed: 4242, numRuns: 100 }).filter((s) => s !== ''));
    } catch {
      // A pattern fast-check cannot generate from: the fixed candidates are all there is.
    }
    SAMPLES.set(key, (samples = found));
  }
  return samples;
}

/** A text value of `min`..`max` code points that the pattern matches (as a whole where one can), or undefined. */
function textWithin(prompt: Message, min: number, max: number): string | undefined {
  const re = patternOf(prompt);
  const whole = wholePatternOf(prompt);
  const fits = (s: string) => codePoints(s) >= min && codePoints(s) <= max;
  const wholly = (s: string) => (whole === undefined || whole.test(s)) && fits(s);
  const ok = (s: string) => (re === undefined || re.test(s)) && fits(s);
  const texts = textsMatching(prompt);
  const direct = texts.find(wholly) ?? texts.find(ok);
  if (direct !== undefined) return direct;
  for (const t of texts) {
    const n = codePoints(t);
    if (n > max) {
      const cut = [...t].slice(0, max).join('');
      if (ok(cut)) return cut;
    } else if (n < min) {
      const grown = lengthen(t, min, ok);
      if (grown !== undefined) return grown;
    }
  }
  return undefined;
}

function numberRule(rules: Message, name: 'min' | 'max'): number | undefined {
  return typeof rules[name] === 'number' && Number.isFinite(rules[name]) ? (rules[name] as number) : undefined;
}

function dateRule(rules: Message, name: 'min' | 'max'): string | undefined {
  const v = rules[name];
  return typeof v === 'string' && isCalendarDate(v) ? v : undefined;
}

/** A file answer (docs/wizards.md: {name, mimeType?, size?, content?}) fitting the prompt's `accept`. */
function fileValue(prompt: Message): Message {
  const accept = Array.isArray(rulesOf(prompt).accept) ? (rulesOf(prompt).accept as unknown[]).filter((a): a is string => typeof a === 'string') : [];
  const extension = accept.find((a) => a.startsWith('.')) ?? '.txt';
  const byExtension: Record<string, string> = { '.png': 'image/png', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.csv': 'text/csv', '.json': 'application/json', '.txt': 'text/plain', '.pdf': 'application/pdf' };
  const mediaType = accept.find((a) => a.includes('/') && !a.endsWith('/*')) ?? byExtension[extension.toLowerCase()] ?? 'application/octet-stream';
  const content = Buffer.from('conformance');
  return { name: `conformance${extension}`, mimeType: mediaType, size: content.length, content: content.toString('base64') };
}

/**
 * A value the prompt accepts by its own rules (000 Appendix A as the profile reads it, C-31), built
 * generically from the type and validation: the default value when it fits, the first choice,
 * `true` for confirm, a number inside min..max, a date inside min..max, a text matching pattern and
 * length, a small file fitting `accept`, `{}` for custom. Undefined when no value can be built (a
 * text pattern no generated string matches).
 */
export function validValue(prompt: Message): unknown {
  const rules = rulesOf(prompt);
  const multiple = prompt.multiple === true;
  switch (prompt.type) {
    case 'choice': {
      const choices = Array.isArray(prompt.choices) ? prompt.choices.filter(isRecord) : [];
      const values = choices.map((c) => c.value);
      const pick = values.some((v) => JSON.stringify(v) === JSON.stringify(prompt.defaultValue)) ? prompt.defaultValue : values[0];
      return multiple ? [pick] : pick;
    }
    case 'confirm':
      return true;
    case 'number': {
      // Strictly inside the bounds where there is room: whether they are inclusive is not in 000.
      const min = numberRule(rules, 'min');
      const max = numberRule(rules, 'max');
      const fits = (n: number) => (min === undefined || n >= min) && (max === undefined || n <= max);
      const inside = (n: number) => (min === undefined || n > min) && (max === undefined || n < max);
      const preferred = [prompt.defaultValue, min !== undefined && max !== undefined ? Math.floor((min + max) / 2) : undefined, min !== undefined ? Math.floor(min) + 1 : undefined, max !== undefined ? Math.ceil(max) - 1 : undefined, 1];
      const pick = preferred.find((n): n is number => typeof n === 'number' && Number.isFinite(n) && inside(n));
      if (pick !== undefined) return pick;
      if (typeof prompt.defaultValue === 'number' && Number.isFinite(prompt.defaultValue) && fits(prompt.defaultValue)) return prompt.defaultValue;
      if (min !== undefined) return fits(Math.ceil(min)) ? Math.ceil(min) : min;
      if (max !== undefined) return fits(Math.floor(max)) ? Math.floor(max) : max;
      return 1;
    }
    case 'date': {
      const min = dateRule(rules, 'min');
      const max = dateRule(rules, 'max');
      if (typeof prompt.defaultValue === 'string' && isCalendarDate(prompt.defaultValue) && (min === undefined || prompt.defaultValue >= min) && (max === undefined || prompt.defaultValue <= max)) {
        return prompt.defaultValue;
      }
      const preferred = '2030-06-15';
      if (min !== undefined && min > preferred) return min;
      if (max !== undefined && max < preferred) return max;
      return preferred;
    }
    case 'file':
      return multiple ? [fileValue(prompt)] : fileValue(prompt);
    case 'custom':
      return {};
    default: {
      const min = numberRule(rules, 'min') ?? (rules.required === true ? 1 : 0);
      const max = numberRule(rules, 'max') ?? Number.MAX_SAFE_INTEGER;
      return textWithin(prompt, Math.max(min, 1), max);
    }
  }
}

/** A value the prompt must refuse, and the rule (requirement) it breaks. */
export interface InvalidProbe {
  value: unknown;
  /** FLOW-VALID-n the value breaks. */
  requirement: string;
  /** What is wrong with it, for messages ("shorter than min 2"). */
  description: string;
}

/**
 * Values the prompt must refuse under every accepted reading, one per rule it shows (each breaks
 * only that rule, as far as the profile's validator can tell): required (null; "" where the type
 * cannot take it: not for text, where C-31 accepts "" as a value, nor custom), a text of the wrong
 * type, pattern (matched by neither the searching nor the anchored reading), text length min/max,
 * number min/max, a non-number, a value outside the choices, a non-boolean for confirm that is no
 * boolean word either, impossible or non-ISO dates. File and custom prompts only get the required
 * probes (FLOW-PROMPT-9: no documented shape).
 */
export function invalidValues(prompt: Message): InvalidProbe[] {
  const rules = rulesOf(prompt);
  const probes: InvalidProbe[] = [];
  if (rules.required === true) {
    probes.push({ value: null, requirement: 'FLOW-VALID-2', description: 'null for a required prompt' });
    const choiceValues = Array.isArray(prompt.choices) ? prompt.choices.filter(isRecord).map((c) => c.value) : [];
    if (prompt.type !== 'text' && prompt.type !== 'custom' && !choiceValues.includes('')) {
      probes.push({ value: '', requirement: 'FLOW-VALID-2', description: `an empty string for a required ${String(prompt.type)} prompt` });
    }
  }
  const min = numberRule(rules, 'min');
  const max = numberRule(rules, 'max');
  switch (prompt.type) {
    case 'text': {
      probes.push({ value: true, requirement: 'FLOW-VALID-1', description: 'a boolean for a text prompt' });
      const re = patternOf(prompt);
      const lo = Math.max(min ?? 1, 1);
      const hi = max ?? Math.max(lo, 16);
      if (re !== undefined) {
        for (const seed of ['!', '@@', ' ', '#$%', '~', '0', 'A', '-']) {
          const s = codePoints(seed) >= lo ? [...seed].slice(0, hi).join('') : (lengthen(seed, lo, () => true) ?? seed);
          if (!re.test(s) && codePoints(s) >= lo && codePoints(s) <= hi) {
            probes.push({ value: s, requirement: 'FLOW-VALID-3', description: `${JSON.stringify(s)}, which the pattern ${String(rules.pattern)} does not match` });
            break;
          }
        }
      }
      const fine = (s: string) => re === undefined || re.test(s);
      if (min !== undefined && min >= 2 && (max === undefined || min <= max)) {
        const short = textWithin(prompt, min - 1, min - 1);
        if (short !== undefined && fine(short)) probes.push({ value: short, requirement: 'FLOW-VALID-4', description: `${min - 1} characters, shorter than min ${min}` });
      }
      if (max !== undefined && max < 5000 && (min === undefined || min <= max)) {
        const base = textWithin(prompt, Math.max(min ?? 1, 1), max);
        const long = base === undefined ? undefined : lengthen(base, max + 1, fine);
        if (long !== undefined) probes.push({ value: long, requirement: 'FLOW-VALID-4', description: `${max + 1} characters, longer than max ${max}` });
      }
      break;
    }
    case 'number':
      probes.push({ value: 'not a number', requirement: 'FLOW-VALID-6', description: 'a string for a number prompt' });
      probes.push({ value: true, requirement: 'FLOW-VALID-6', description: 'a boolean for a number prompt' });
      if (min !== undefined) probes.push({ value: min - 1, requirement: 'FLOW-VALID-5', description: `${min - 1}, below min ${min}` });
      if (max !== undefined) probes.push({ value: max + 1, requirement: 'FLOW-VALID-5', description: `${max + 1}, above max ${max}` });
      break;
    case 'choice': {
      const values = Array.isArray(prompt.choices) ? prompt.choices.filter(isRecord).map((c) => JSON.stringify(c.value)) : [];
      const outside = ['__not_one_of_the_choices__', 987654321].find((v) => !values.includes(JSON.stringify(v)));
      probes.push({ value: outside, requirement: 'FLOW-VALID-7', description: `${JSON.stringify(outside)}, not among the choices` });
      break;
    }
    case 'confirm':
      probes.push({ value: 'maybe', requirement: 'FLOW-VALID-8', description: 'the string "maybe" for a confirm prompt' });
      probes.push({ value: 42, requirement: 'FLOW-VALID-8', description: 'the number 42 for a confirm prompt' });
      break;
    case 'date':
      probes.push({ value: '2031-02-30', requirement: 'FLOW-VALID-9', description: '2031-02-30, not a calendar date' });
      probes.push({ value: '15/06/2030', requirement: 'FLOW-VALID-9', description: '15/06/2030, not YYYY-MM-DD' });
      break;
  }
  return probes;
}

// ---- whole sessions ---------------------------------------------------------------------------

/** One answered prompt of a run. */
export interface Turn {
  prompt: Message;
  via: PromptSource;
  value: unknown;
  /** The whole interaction.respond answer. */
  answer: Message;
}

export interface CompletedRun {
  turns: Turn[];
  /** The interaction.complete event (already answered unless acknowledge was false). */
  complete: FlowEvent;
  /** Every session request seen after the first prompt, in order (continue, prompt, complete). */
  events: FlowEvent[];
}

export interface RunOptions {
  /** The prompt to answer first (default: firstPrompt). */
  current?: CurrentPrompt;
  /** Most prompts to answer before giving up (default 40). */
  maxTurns?: number;
  /** Requirement a stall breaks (default: the case's first). */
  requirement?: string;
  /** Chooses the value for a prompt (default validValue). */
  valueFor?: (prompt: Message, turn: number) => unknown;
  /** Called with each prompt before it is answered (checks, probes of invalid values). */
  beforeAnswer?: (current: CurrentPrompt, turn: number) => Promise<void> | void;
  /** Called after each answer, before a refused valid value ends the run (checks). */
  onTurn?: (turn: Turn) => Promise<void> | void;
  /** Called with each session request that follows an answer (checks of shapes and order). */
  onEvent?: (event: FlowEvent) => Promise<void> | void;
}

/**
 * The requirement a refused valid value breaks: the initialPrompt not being current (FLOW-START-6),
 * a continue's nextPrompt not being current (FLOW-PROMPT-13), else FLOW-RESPOND-2.
 */
export function refusalRequirement(via: PromptSource): string {
  return via === 'initialPrompt' ? 'FLOW-START-6' : via === 'interaction.continue' ? 'FLOW-PROMPT-13' : 'FLOW-RESPOND-2';
}

export interface WalkOptions extends RunOptions {
  /**
   * Called with each prompt before it is answered; returning false stops the walk there (the
   * session is left as it is: cancel it if the case goes on).
   */
  visit?: (current: CurrentPrompt, turn: number) => Promise<boolean | void> | boolean | void;
}

/** What a walk saw; `complete` is absent when `visit` stopped it. */
export interface Walk {
  turns: Turn[];
  events: FlowEvent[];
  complete?: FlowEvent;
  /** The prompt the walk stopped at, when `visit` stopped it. */
  stoppedAt?: CurrentPrompt;
}

/**
 * Answers every prompt with a valid value until `interaction.complete` arrives, or until `visit`
 * returns false. A valid value refused (FLOW-START-6 / FLOW-PROMPT-13 / FLOW-RESPOND-2, see
 * refusalRequirement), a prompt that never comes, or more than maxTurns prompts is a precondition
 * failure.
 */
export async function walkSession(ctx: CaseContext, session: FlowSession, options: WalkOptions = {}): Promise<Walk> {
  const turns: Turn[] = [];
  const events: FlowEvent[] = [];
  let current = options.current ?? (await firstPrompt(ctx, session));
  const maxTurns = options.maxTurns ?? 40;
  for (let turn = 0; turn < maxTurns; turn++) {
    if ((await options.visit?.(current, turn)) === false) return { turns, events, stoppedAt: current };
    await options.beforeAnswer?.(current, turn);
    const value = (options.valueFor ?? validValue)(current.prompt, turn);
    if (value === undefined) {
      throw new TargetPreconditionError(`no valid value could be built for prompt ${JSON.stringify(current.prompt)}`, { actual: current.prompt });
    }
    const answer = await respond(ctx, session, value, options.requirement);
    const done: Turn = { prompt: current.prompt, via: current.via, value, answer };
    turns.push(done);
    await options.onTurn?.(done);
    if (respondOutcome(answer) !== 'accepted') {
      throw new TargetPreconditionError(`the value ${JSON.stringify(value)} for prompt ${JSON.stringify(current.prompt.message)} (${current.via}) was not accepted`, {
        requirement: refusalRequirement(current.via),
        actual: answer,
      });
    }
    for (;;) {
      const event = await expectEvent(ctx, session.sessionId, 'the next prompt or interaction.complete', options.requirement);
      events.push(event);
      await options.onEvent?.(event);
      if (event.method === FLOW_METHOD.complete) return { turns, events, complete: event };
      if (event.prompt !== undefined) {
        current = { prompt: event.prompt, via: event.method as PromptSource, event };
        break;
      }
    }
  }
  throw new TargetPreconditionError(`session ${session.sessionId} did not complete within ${maxTurns} answered prompts`, {
    ...(options.requirement !== undefined ? { requirement: options.requirement } : {}),
  });
}

/** walkSession without stopping: every prompt answered until `interaction.complete`. */
export async function runToCompletion(ctx: CaseContext, session: FlowSession, options: RunOptions = {}): Promise<CompletedRun> {
  const walk = await walkSession(ctx, session, options);
  return { turns: walk.turns, events: walk.events, complete: walk.complete as FlowEvent };
}

/** Session requests about `sessionId` still queued on the connection (not taken by next). */
export function pendingSessionRequests(ctx: CaseContext, sessionId: string, methods: readonly string[] = SESSION_REQUEST_METHODS): Message[] {
  return ctx.connection
    .pending()
    .map((r) => r.message)
    .filter((m): m is Message => isSessionRequest(m, sessionId, methods));
}

/** True for the answer to request `id` (re-exported for cases that wait on a respond themselves). */
export { isResponseTo };

// ---- judging what the target sent --------------------------------------------------------------

// The prompt rules themselves are the judge's (src/judge/prompt.ts), shared with the proxy.
export { progressProblems, promptProblems, PROMPT_SHAPE_REQUIREMENTS, shapeProblems, type Problem } from '../../src/judge/index.js';

/**
 * Records one check per requirement in `requirements` (the ones the case declares and judges
 * here): passed when no problem names it, else failed with the problems' messages.
 */
export function checkProblems(ctx: CaseContext, requirements: readonly string[], problems: readonly Problem[], where: string, actual?: unknown): void {
  for (const requirement of requirements) {
    const mine = problems.filter((p) => p.requirement === requirement);
    ctx.check(requirement, mine.length === 0, {
      message: mine.length === 0 ? `${where}: no rule of ${requirement} broken` : `${where}: ${mine.map((p) => p.message).join('; ')}`,
      ...(mine.length > 0 && actual !== undefined ? { actual } : {}),
    });
  }
}

/** The 000 names of the Flow error codes (FLOW-ERR-1). */
export const FLOW_ERROR_NAMES: Readonly<Record<number, string>> = {
  [FLOW_ERROR.SESSION_NOT_FOUND]: 'SESSION_NOT_FOUND',
  [FLOW_ERROR.SESSION_EXPIRED]: 'SESSION_EXPIRED',
  [FLOW_ERROR.INVALID_STATE_TRANSITION]: 'INVALID_STATE_TRANSITION',
  [FLOW_ERROR.VALIDATION_FAILED]: 'VALIDATION_FAILED',
  [FLOW_ERROR.TIMEOUT]: 'TIMEOUT',
  [FLOW_ERROR.ALREADY_CANCELLED]: 'ALREADY_CANCELLED',
  [FLOW_ERROR.NOT_INTERACTIVE]: 'NOT_INTERACTIVE',
};

export function isFlowErrorCode(code: unknown): code is number {
  return typeof code === 'number' && code <= -32001 && code >= -32007;
}

export interface FlowErrorExpectation {
  /** The requirement that names the answer (e.g. FLOW-ERR-4). */
  requirement: string;
  /** Accepted codes (first = recommended). */
  codes: readonly number[];
  /** What was asked, for messages. */
  what: string;
  /** The session the request named (FLOW-ERR-2, FLOW-ERR-3). */
  sessionId?: string;
  /** Of FLOW-ERR-1, -2, -3: those the case declares and wants judged here. */
  also?: readonly string[];
}

/**
 * Judges an error answer: `requirement` (one of the accepted codes), and, as asked in `also`,
 * FLOW-ERR-1 (a Flow-range code means what 000 says: here, one of the accepted codes), FLOW-ERR-2
 * (data.sessionId names the session) and FLOW-ERR-3 (the message names the session). Returns
 * whether the main requirement held.
 */
export function checkFlowError(ctx: CaseContext, answer: Message | undefined, expect: FlowErrorExpectation): boolean {
  if (answer === undefined) return false;
  const error = isRecord(answer.error) ? answer.error : undefined;
  const code = error?.code;
  const names = expect.codes.map((c) => `${c}${FLOW_ERROR_NAMES[c] ? ` ${FLOW_ERROR_NAMES[c]}` : ''}`).join(' or ');
  const ok = ctx.check(expect.requirement, error !== undefined && expect.codes.includes(code as number), {
    message: `${expect.what} is answered with error ${names}`,
    expected: { error: { code: expect.codes.length === 1 ? expect.codes[0] : expect.codes } },
    actual: error ? { error } : { result: answer.result },
  });
  const also = new Set(expect.also ?? []);
  if (error === undefined) return ok;
  if (also.has('FLOW-ERR-1') && isFlowErrorCode(code)) {
    ctx.check('FLOW-ERR-1', expect.codes.includes(code), {
      message: `${expect.what}: a Flow error code must carry its 000 meaning (${names}), not ${code} ${FLOW_ERROR_NAMES[code]}`,
      actual: { error },
    });
  }
  if (expect.sessionId !== undefined && isFlowErrorCode(code)) {
    const data = isRecord(error.data) ? error.data : {};
    if (also.has('FLOW-ERR-2')) {
      ctx.check('FLOW-ERR-2', data.sessionId === expect.sessionId, {
        message: `${expect.what}: error.data.sessionId names the session`,
        expected: { data: { sessionId: expect.sessionId } },
        actual: { data: error.data },
      });
    }
    if (also.has('FLOW-ERR-3')) {
      ctx.check('FLOW-ERR-3', typeof error.message === 'string' && error.message.includes(expect.sessionId) && error.message.length > expect.sessionId.length, {
        message: `${expect.what}: error.message names the condition and the session`,
        actual: { message: error.message },
      });
    }
  }
  return ok;
}
