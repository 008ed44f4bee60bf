// The live validator of one proxied session: every message in both directions against the schema
// for its method and direction, and the rules a passive observer can judge from the message
// stream: the MCP lifecycle, request/response pairing, ids, progress and cancellation, capability
// gates, the MCP Flow session rules and the WebTransport initialize negotiation. Each violation
// cites the requirement it breaks.
import {
  capabilityGate,
  declares,
  findMethod,
  isDefinedIn,
  isProtocolVersion,
  maySend,
  type ProtocolVersion,
} from '../../protocol/methods.js';
import { idKey } from '../../protocol/jsonrpc.js';
import { findIllegalObservation, isInteractionState, isTerminal, type InteractionState } from '../../protocol/flow-session.js';
import { failureVerdict, type Requirements } from '../../protocol/requirements.js';
import { judgeMessage, type SchemaRegistry } from '../../schema/index.js';
import type { ConnectionFault, TransportKind } from '../../transport/connection.js';
import { isRecord } from '../../wire/index.js';
import { cborIdIsFloat } from './cbor-id.js';
import { faultRequirement, WIRE_FAULT_REQUIREMENTS } from './fault-requirements.js';
import { progressProblems, promptProblems } from './prompt-rules.js';
import type { Flow, Violation } from './violation.js';

export interface ValidatorOptions {
  session: number;
  registry: SchemaRegistry;
  requirements: Requirements;
  /** The client's transport (client-to-server messages are judged by its rules). */
  downstream: TransportKind;
  /** The server's transport. */
  upstream: TransportKind;
}

/** Requirements the message-stream rules below can cite (besides the schemas' own). */
export const RULE_REQUIREMENTS: readonly string[] = [
  'FLOW-PROMPT-4', 'FLOW-PROMPT-5', 'FLOW-PROMPT-6', 'FLOW-PROMPT-7', 'FLOW-PROMPT-8', 'FLOW-PROMPT-10', 'FLOW-PROMPT-15', 'FLOW-CAP-9', 'CORE-CAP-3', 'CORE-CAP-4',
  'CORE-LIFE-8', 'CORE-LIFE-12',
  'CORE-RPC-1', 'CORE-RPC-2', 'CORE-RPC-3', 'CORE-RPC-4', 'CORE-RPC-5', 'CORE-RPC-6', 'CORE-RPC-7', 'CORE-RPC-12',
  'CORE-RPC-14', 'CORE-RPC-16', 'CORE-LIFE-1', 'CORE-LIFE-4', 'CORE-LIFE-6', 'CORE-LIFE-7', 'CORE-LIFE-9', 'CORE-LIFE-11',
  'CORE-CAP-1', 'CORE-CAP-2', 'CORE-CAP-5', 'CORE-LOG-5', 'CORE-RES-5', 'CORE-PROG-2', 'CORE-PROG-3', 'CORE-PROG-4',
  'CORE-CANCEL-1', 'CORE-CANCEL-2', 'CORE-CANCEL-3', 'FLOW-CAP-8', 'FLOW-START-7', 'FLOW-SM-2', 'FLOW-SM-3', 'FLOW-SM-6',
  'FLOW-SM-10', 'FLOW-RESPOND-8', 'FLOW-START-8',
];

/** Rules that only apply on a WebTransport leg. */
export const WT_RULE_REQUIREMENTS: readonly string[] = ['WT-CANCEL-2', 'WT-ENC-13', 'WT-ID-1', 'WT-ENC-4', 'WT-ENC-6', 'WT-ENC-9', 'WT-CANCEL-6', ...WIRE_FAULT_REQUIREMENTS];

type Phase = 'new' | 'initializing' | 'answered' | 'ready' | 'failed';

interface PendingRequest {
  method: string;
  from: Flow;
  id: string | number;
  progressToken?: string | number;
  cancelled: boolean;
  /** How it was cancelled: notifications/cancelled (no answer expected) or $/cancel (an error expected). */
  cancelledBy?: string;
  /** The request must be refused: the requirement a success (or, where `codes` are given, an error with another code) breaks. */
  mustRefuse?: { requirement: string; why: string; codes?: readonly number[]; onResult?: string };
  params: Record<string, unknown> | undefined;
}

interface FlowSession {
  states: InteractionState[];
  completes: number;
  /** The session's first prompt arrived (initialPrompt, interaction.prompt, or continue with nextPrompt). */
  prompted: boolean;
  /** Terminal because interaction.cancel was answered (a response, not ordered with server requests on HTTP). */
  cancelledByAnswer?: boolean;
  /**
   * First seen in a request of the server's: started on another connection (sessions are not tied
   * to one, FLOW-SEC-4) or before the proxy saw this one. Its start is not judged here.
   */
  startedElsewhere?: true;
}

const other = (flow: Flow): Flow => (flow === 'client-to-server' ? 'server-to-client' : 'client-to-server');
const senderOf = (flow: Flow): 'client' | 'server' => (flow === 'client-to-server' ? 'client' : 'server');
const isId = (id: unknown): id is string | number => typeof id === 'string' || typeof id === 'number';

export class SessionValidator {
  readonly #options: ValidatorOptions;
  readonly #violations: Violation[] = [];
  /** Requirements judged in this session (schemas used, rules that applied). */
  readonly #checked = new Set<string>();
  #phase: Phase = 'new';
  #initializeId: string | number | undefined;
  #requestedVersion: string | undefined;
  #version: ProtocolVersion | undefined;
  #clientCapabilities: unknown;
  #serverCapabilities: unknown;
  #offeredEncodings: string[] | undefined;
  /** Requests not yet answered, by sender and id. */
  readonly #pending = new Map<string, PendingRequest>();
  /** Requests answered (or cancelled and answered), by sender and id, to see a second answer. */
  readonly #answered = new Map<string, PendingRequest>();
  /** Ids each side used for its requests. */
  readonly #usedIds = { 'client-to-server': new Set<string>(), 'server-to-client': new Set<string>() };
  /** Progress tokens by the side that supplied them: request key and last progress value. */
  readonly #tokens = new Map<string, { requestKey: string; last?: number; finished: boolean }>();
  /** The last message each side sent was a well-formed notification (to spot an answered notification). */
  readonly #lastWasNotification = { 'client-to-server': false, 'server-to-client': false };
  readonly #subscriptions = new Set<string>();
  readonly #flowSessions = new Map<string, FlowSession>();
  /** Server requests naming a session not known yet while an interaction.start was unanswered. */
  #orphans: { method: string; params: Record<string, unknown> | undefined; add: (r: string, t: string) => void }[] = [];
  readonly #seenFaults = { downstream: 0, upstream: 0 };
  #lastSeq = 0;

  constructor(options: ValidatorOptions) {
    this.#options = options;
    for (const id of RULE_REQUIREMENTS) this.#checked.add(id);
    if (options.downstream === 'webtransport' || options.upstream === 'webtransport') for (const id of WT_RULE_REQUIREMENTS) this.#checked.add(id);
  }

  get violations(): readonly Violation[] {
    return this.#violations;
  }

  /** Requirement IDs this session judged. */
  checked(): ReadonlySet<string> {
    return this.#checked;
  }

  /** The protocol version the initialize exchange settled on, once known. */
  get protocolVersion(): string | undefined {
    return this.#version;
  }

  /** The encodings offered upstream in initialize (WebTransport upstream), to judge the server's choice. */
  noteOfferedEncodings(encodings: string[] | undefined): void {
    this.#offeredEncodings = encodings;
  }

  /**
   * Judges one message; returns the violations it caused. `wire` is how it arrived, where the
   * transport has more than one encoding (WebTransport: a CBOR body's integer ids must be CBOR integers).
   */
  observe(direction: Flow, message: unknown, seq: number, at = Date.now(), wire?: { encoding?: 'json' | 'cbor'; body?: Uint8Array }): Violation[] {
    this.#lastSeq = seq;
    const before = this.#violations.length;
    if (wire?.encoding === 'cbor' && wire.body && !Array.isArray(message) && cborIdIsFloat(wire.body)) {
      this.#add(direction, seq, at, subjectOf(message), 'WT-ENC-13', `the id ${JSON.stringify((message as { id?: unknown }).id)} is encoded as a CBOR float, not a CBOR integer`, message);
    }
    const items = Array.isArray(message) ? message : [message];
    if (Array.isArray(message) && message.length === 0) this.#add(direction, seq, at, 'batch', 'CORE-RPC-1', 'an empty JSON array is not a JSON-RPC message', message);
    for (const item of items) this.#observeOne(direction, item, seq, at);
    return this.#violations.slice(before);
  }

  /** Judges the faults a connection recorded since the last call (undecodable frames, refused messages...). */
  observeFaults(side: 'downstream' | 'upstream', faults: readonly ConnectionFault[], seq: number): Violation[] {
    const before = this.#violations.length;
    const fresh = faults.slice(this.#seenFaults[side]);
    this.#seenFaults[side] = faults.length;
    const sender = side === 'downstream' ? 'client' : 'server';
    const transport = side === 'downstream' ? this.#options.downstream : this.#options.upstream;
    const direction: Flow = sender === 'client' ? 'client-to-server' : 'server-to-client';
    for (const fault of fresh) {
      const requirement = faultRequirement(fault, sender, this.#phase !== 'ready' && this.#phase !== 'answered', transport);
      if (requirement === undefined) continue;
      this.#add(direction, seq, fault.at, fault.channel.kind === 'datagram' ? 'datagram' : 'frame', requirement, `${fault.code}: ${fault.message}`);
    }
    return this.#violations.slice(before);
  }

  /** End-of-session rules: every request answered exactly once. */
  finish(): Violation[] {
    const before = this.#violations.length;
    for (const request of this.#pending.values()) {
      if (request.cancelled) continue;
      const answerer = other(request.from);
      this.#add(answerer, this.#lastSeq, Date.now(), `${request.method} ${JSON.stringify(request.id)}`, 'CORE-RPC-16', `request ${JSON.stringify(request.id)} (${request.method}) was never answered before the session ended`);
    }
    this.#pending.clear();
    // Requests for a session no start of this connection named: a session of another connection (FLOW-SEC-4).
    for (const orphan of this.#orphans.splice(0)) this.#flowServerRequest(orphan.method, orphan.params, orphan.add, true);
    for (const [id, session] of this.#flowSessions) {
      const state = session.states.at(-1);
      if (session.startedElsewhere || session.prompted || session.completes > 0 || (state !== undefined && isTerminal(state))) continue;
      this.#add('server-to-client', this.#lastSeq, Date.now(), `session ${JSON.stringify(id)}`, 'FLOW-START-8', `session ${JSON.stringify(id)} started without initialPrompt never received its first interaction.prompt`);
    }
    return this.#violations.slice(before);
  }

  // ----- one message -----------------------------------------------------------------------------

  #observeOne(direction: Flow, message: unknown, seq: number, at: number): void {
    const leg = direction === 'client-to-server' ? this.#options.downstream : this.#options.upstream;
    const subject = subjectOf(message);
    const add = (requirement: string, text: string) => this.#add(direction, seq, at, subject, requirement, text, message);
    const wasNotification = this.#lastWasNotification[other(direction)];
    this.#lastWasNotification[direction] = false;
    if (!this.#envelope(message, leg, add)) return;
    const m = message as Record<string, unknown>;
    if (typeof m['method'] === 'string') {
      const method = m['method'];
      const params = isRecord(m['params']) ? m['params'] : undefined;
      if ('id' in m) this.#onRequest(direction, method, m['id'] as string | number, params, add);
      else {
        this.#onNotification(direction, method, params, add);
        this.#lastWasNotification[direction] = true;
      }
      this.#schema(direction, m, undefined, add);
      return;
    }
    this.#onResponse(direction, m, wasNotification, add);
  }

  /** The JSON-RPC envelope rules; false when the message is too broken to judge further. */
  #envelope(message: unknown, leg: TransportKind, add: (requirement: string, text: string) => void): boolean {
    if (!isRecord(message)) {
      add('CORE-RPC-1', 'is not a JSON object');
      return false;
    }
    if (message['jsonrpc'] !== '2.0') {
      add('CORE-RPC-1', `jsonrpc is ${JSON.stringify(message['jsonrpc'])}, not "2.0"`);
      return false;
    }
    if ('method' in message) {
      if (typeof message['method'] !== 'string') {
        add('CORE-RPC-2', 'method is not a string');
        return false;
      }
      if ('params' in message && !isRecord(message['params'])) {
        add('CORE-RPC-2', `params is ${Array.isArray(message['params']) ? 'an array (positional params)' : 'not an object'}`);
        return false;
      }
      if ('id' in message) {
        const id = message['id'];
        if (!(typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id)))) {
          add('CORE-RPC-3', `request id ${JSON.stringify(id)} is neither a string nor an integer`);
          return false;
        }
        if (leg === 'webtransport' && !(typeof id === 'number' && id >= 0 && id <= 0xffff_ffff)) {
          add('WT-ID-1', `request id ${JSON.stringify(id)} is not an integer in 0..2^32-1 (WebTransport)`);
        }
      }
      return true;
    }
    if (!('id' in message)) {
      add('CORE-RPC-5', 'has neither method nor id');
      return false;
    }
    const hasResult = 'result' in message;
    const hasError = 'error' in message;
    if (hasResult === hasError) {
      add('CORE-RPC-5', hasResult ? 'has both result and error' : 'has neither result nor error');
      return false;
    }
    if (hasError) {
      const error = message['error'];
      if (!isRecord(error) || !Number.isInteger(error['code']) || typeof error['message'] !== 'string' || error['message'] === '') {
        add('CORE-RPC-7', 'error is not an object with an integer code and a non-empty message');
        return false;
      }
    } else if (!isRecord(message['result'])) {
      add('CORE-RPC-14', `result is ${Array.isArray(message['result']) ? 'an array' : JSON.stringify(message['result'])}, not an object`);
      return false;
    }
    return true;
  }

  #onRequest(
    direction: Flow,
    method: string,
    id: string | number,
    params: Record<string, unknown> | undefined,
    add: (requirement: string, text: string) => void,
  ): void {
    const key = `${direction}:${idKey(id)}`;
    if (this.#usedIds[direction].has(idKey(id))) add('CORE-RPC-4', `request id ${JSON.stringify(id)} was already used by the ${senderOf(direction)} in this session`);
    this.#usedIds[direction].add(idKey(id));
    const secondInitialize = direction === 'client-to-server' && method === 'initialize' && (this.#phase === 'answered' || this.#phase === 'ready');
    this.#lifecycleOnRequest(direction, method, id, params, add);
    const refusal = this.#gates(direction, method, 'request', add);
    const meta = isRecord(params?.['_meta']) ? params['_meta'] : undefined;
    const token = meta?.['progressToken'];
    const request: PendingRequest = { method, from: direction, id, cancelled: false, params };
    if (refusal) request.mustRefuse = refusal;
    else if (secondInitialize) request.mustRefuse = { requirement: 'CORE-LIFE-8', why: 'a second initialize on an initialized session' };
    if (isId(token)) {
      request.progressToken = token;
      this.#tokens.set(`${direction}:${idKey(token)}`, { requestKey: key, finished: false });
    }
    this.#pending.set(key, request);
    if (direction === 'server-to-client') this.#flowServerRequest(method, params, add);
    else if (method === 'interaction.respond') {
      const session = this.#flowSessions.get(String(params?.['sessionId']));
      const state = session?.states.at(-1);
      if (session && state !== 'waiting_user') add('FLOW-RESPOND-8', `interaction.respond for session ${JSON.stringify(params?.['sessionId'])}, which is ${state}, not waiting_user`);
    }
  }

  #lifecycleOnRequest(direction: Flow, method: string, id: string | number, params: Record<string, unknown> | undefined, add: (r: string, t: string) => void): void {
    if (direction === 'client-to-server') {
      if (method === 'initialize') {
        if (this.#phase === 'new' || this.#phase === 'failed') {
          this.#phase = 'initializing';
          this.#initializeId = id;
          this.#requestedVersion = typeof params?.['protocolVersion'] === 'string' ? params['protocolVersion'] : undefined;
          this.#clientCapabilities = params?.['capabilities'];
        }
        return;
      }
      if (method === 'ping') return;
      if (this.#phase === 'new') add('CORE-LIFE-1', `${method} was sent before initialize: initialize must be the first request`);
      else if (this.#phase === 'initializing') add('CORE-LIFE-6', `${method} was sent before the initialize response arrived`);
      else if (this.#phase === 'answered') add('CORE-LIFE-4', `${method} was sent before notifications/initialized`);
      else if (this.#phase === 'failed') add('CORE-LIFE-9', `${method} was sent after initialize failed`);
      return;
    }
    if (method !== 'ping' && this.#phase !== 'ready') add('CORE-LIFE-7', `the server sent the request ${method} before notifications/initialized`);
  }

  #onNotification(direction: Flow, method: string, params: Record<string, unknown> | undefined, add: (r: string, t: string) => void): void {
    if (direction === 'client-to-server' && method === 'notifications/initialized' && this.#phase === 'answered') this.#phase = 'ready';
    if (direction === 'server-to-client' && this.#phase !== 'ready' && !['notifications/message', 'notifications/progress', '$/shutdown'].includes(method)) {
      add('CORE-LIFE-7', `the server sent the notification ${method} before notifications/initialized`);
    }
    this.#gates(direction, method, 'notification', add);
    if (method === 'notifications/progress') this.#progress(direction, params, add);
    else if (method === 'notifications/cancelled' || method === '$/cancel') this.#cancel(direction, method, params, add);
    else if (method === 'notifications/resources/updated' && direction === 'server-to-client') {
      const uri = params?.['uri'];
      if (typeof uri === 'string' && !this.#subscriptions.has(uri)) add('CORE-RES-5', `notifications/resources/updated for ${uri}, which the client never subscribed to`);
    }
  }

  /**
   * Direction, version and capability gates of a method. For a request the receiver must refuse,
   * returns the requirement its success would break.
   */
  #gates(direction: Flow, method: string, kind: 'request' | 'notification', add: (r: string, t: string) => void): PendingRequest['mustRefuse'] {
    const definition = findMethod(method);
    if (!definition) return undefined;
    const sender = senderOf(direction);
    if (!maySend(method, sender)) {
      if (definition.system === 'flow') {
        add('FLOW-CAP-8', `${method} is a ${definition.direction} ${definition.kind}; the ${sender} sent it`);
        // Served as if it went the right way breaks the direction rule itself; refused with another code, FLOW-CAP-9.
        return {
          requirement: 'FLOW-CAP-9',
          onResult: 'FLOW-CAP-8',
          why: `${method} sent the wrong way must be answered -32601 Method not found (or -32001 for a session the receiver does not have)`,
          codes: [-32601, -32001],
        };
      }
      if (method === '$/cancel' && sender === 'server') add('WT-CANCEL-6', '$/cancel is sent by clients only');
      return undefined;
    }
    if (this.#version !== undefined && definition.system === 'core' && !isDefinedIn(method, this.#version)) {
      add('CORE-LIFE-11', `${method} is not defined in the negotiated protocol version ${this.#version}`);
      return undefined;
    }
    const gate = this.#version !== undefined || this.#phase === 'ready' ? capabilityGate(method, this.#version) : undefined;
    if (!gate) return undefined;
    if (gate.declaredBy === 'server' && this.#serverCapabilities !== undefined && !declares(this.#serverCapabilities, gate.path)) {
      if (kind === 'request' && sender === 'client') {
        add('CORE-CAP-1', `${method} needs the server capability ${gate.path}, which the server did not declare`);
        return gate.path === 'resources.subscribe'
          ? { requirement: 'CORE-CAP-4', why: `${method} without resources.subscribe declared` }
          : { requirement: 'CORE-CAP-3', why: `${method} is a feature (${gate.path}) the server did not declare` };
      }
      else if (sender === 'server' && gate.path.endsWith('listChanged')) add('CORE-CAP-5', `${method} needs ${gate.path}: true, which the server did not declare`);
      else if (sender === 'server' && gate.path === 'logging') add('CORE-LOG-5', `${method} was sent although the server did not declare logging`);
    }
    if (gate.declaredBy === 'client' && sender === 'server' && kind === 'request' && !declares(this.#clientCapabilities, gate.path)) {
      add('CORE-CAP-2', `${method} needs the client capability ${gate.path}, which the client did not declare`);
    }
    return undefined;
  }

  #progress(direction: Flow, params: Record<string, unknown> | undefined, add: (r: string, t: string) => void): void {
    const token = params?.['progressToken'];
    const entry = this.#tokens.get(`${other(direction)}:${idKey(token)}`);
    if (!entry) {
      add('CORE-PROG-2', `progress token ${JSON.stringify(token)} was never supplied by the ${senderOf(other(direction))}`);
      return;
    }
    if (entry.finished) {
      add('CORE-PROG-4', `progress for token ${JSON.stringify(token)} after its request was answered`);
      return;
    }
    const progress = params?.['progress'];
    if (typeof progress === 'number') {
      if (entry.last !== undefined && !(progress > entry.last)) add('CORE-PROG-3', `progress ${progress} does not increase on ${entry.last}`);
      entry.last = progress;
    }
  }

  #cancel(direction: Flow, method: string, params: Record<string, unknown> | undefined, add: (r: string, t: string) => void): void {
    const requestId = params?.['requestId'];
    const key = `${direction}:${idKey(requestId)}`;
    const own = this.#pending.get(key) ?? this.#answered.get(key);
    if (!own && !this.#usedIds[direction].has(idKey(requestId))) {
      add(method === '$/cancel' ? 'WT-CANCEL-6' : 'CORE-CANCEL-1', `${method} names ${JSON.stringify(requestId)}, which the ${senderOf(direction)} never sent`);
      return;
    }
    if (own?.method === 'initialize' && direction === 'client-to-server') add('CORE-CANCEL-3', `${method} cancels the initialize request`);
    const pending = this.#pending.get(key);
    if (pending) {
      pending.cancelled = true;
      pending.cancelledBy = method;
    }
  }

  #onResponse(direction: Flow, message: Record<string, unknown>, afterNotification: boolean, add: (r: string, t: string) => void): void {
    const id = message['id'];
    if (id === null) {
      // An error with id null answers something that could not be read as a request: if the other side
      // only sent well-formed messages and its last was a notification, it answers that notification.
      if (afterNotification) add('CORE-RPC-6', 'an error response (id null) answers a notification');
      return;
    }
    const requester = other(direction);
    const key = `${requester}:${idKey(id)}`;
    const request = this.#pending.get(key);
    if (!request) {
      const answered = this.#answered.get(key);
      if (answered) {
        add('CORE-RPC-16', `a second answer to ${answered.method} request ${JSON.stringify(id)}`);
        return;
      }
      const retyped = [...this.#pending.values()].find((p) => p.from === requester && String(p.id) === String(id));
      if (retyped) {
        const outsideBinding = this.#options.upstream !== 'webtransport' && direction === 'server-to-client';
        add(outsideBinding ? 'CORE-RPC-12' : 'CORE-RPC-5', `answers id ${JSON.stringify(retyped.id)} (${retyped.method}) with the id ${JSON.stringify(id)} of another JSON type`);
      } else {
        add('CORE-RPC-5', `answers id ${JSON.stringify(id)}, which no ${senderOf(requester)} request in flight has`);
      }
      return;
    }
    this.#pending.delete(key);
    this.#answered.set(key, request);
    if (request.progressToken !== undefined) {
      const token = this.#tokens.get(`${requester}:${idKey(request.progressToken)}`);
      if (token) token.finished = true;
    }
    if (request.cancelled && direction === 'server-to-client' && request.method !== 'initialize') {
      if (request.cancelledBy === '$/cancel') {
        if ('result' in message) add('WT-CANCEL-2', `request ${JSON.stringify(id)} (${request.method}) was cancelled with $/cancel but answered with a result, not an error`);
      } else add('CORE-CANCEL-2', `request ${JSON.stringify(id)} (${request.method}) was answered after the client cancelled it`);
    }
    const refusal = request.mustRefuse;
    if (refusal) {
      const code = isRecord(message['error']) ? message['error']['code'] : undefined;
      if ('result' in message) add(refusal.onResult ?? refusal.requirement, `${refusal.why}, yet it was answered with a result`);
      else if (refusal.codes !== undefined && !refusal.codes.includes(code as number)) add(refusal.requirement, `${refusal.why}, yet it was answered with error ${String(code)}`);
    }
    if ('result' in message && isRecord(message['result'])) {
      const data = Object.keys(message['result']).filter((name) => name !== '_meta');
      if (data.length > 0 && request.method === 'ping') add('CORE-LIFE-12', `ping was answered with a non-empty result (${data.join(', ')})`);
      else if (data.length > 0 && ['logging/setLevel', 'resources/subscribe', 'resources/unsubscribe'].includes(request.method)) {
        add('CORE-RPC-14', `${request.method} was answered with a non-empty result (${data.join(', ')})`);
      }
    }
    if (request.method === 'initialize' && direction === 'server-to-client' && !refusal) this.#onInitializeAnswer(message, add);
    if (request.method === 'resources/subscribe' && 'result' in message && typeof request.params?.['uri'] === 'string') this.#subscriptions.add(request.params['uri']);
    if ('result' in message) this.#flowResult(request, message['result'] as Record<string, unknown>, add);
    this.#schema(direction, message, request.method, add, isRecord(request.params) && 'task' in request.params);
  }

  #onInitializeAnswer(message: Record<string, unknown>, add: (r: string, t: string) => void): void {
    const result = isRecord(message['result']) ? message['result'] : undefined;
    if (!result) {
      this.#phase = 'failed';
      return;
    }
    this.#phase = 'answered';
    const version = result['protocolVersion'];
    if (isProtocolVersion(version)) this.#version = version;
    this.#serverCapabilities = result['capabilities'];
    if (this.#options.upstream !== 'webtransport') return;
    const transport = isRecord(result['transport']) ? result['transport'] : undefined;
    const encoding = transport?.['encoding'];
    if (typeof encoding !== 'string') return;
    const offered = this.#offeredEncodings;
    if (offered === undefined) {
      if (encoding !== 'json') add('WT-ENC-4', `the client offered no encodings, yet the server selected ${JSON.stringify(encoding)}`);
      return;
    }
    if (encoding !== 'json' && !offered.includes(encoding)) {
      add('WT-ENC-9', `selected ${JSON.stringify(encoding)}, which the client did not offer (${offered.join(', ')})`);
      return;
    }
    // Every implementation speaks json (WT-ENC-8): an encoding offered after json cannot be the first supported one.
    const jsonAt = offered.indexOf('json');
    if (jsonAt >= 0 && offered.indexOf(encoding) > jsonAt) add('WT-ENC-6', `selected ${JSON.stringify(encoding)} although the client preferred "json" (offered ${offered.join(', ')})`);
  }

  // ----- MCP Flow sessions -------------------------------------------------------------------------

  #flowResult(request: PendingRequest, result: Record<string, unknown>, add: (r: string, t: string) => void): void {
    if (!isRecord(result)) return;
    const sessionId = typeof request.params?.['sessionId'] === 'string' ? request.params['sessionId'] : undefined;
    switch (request.method) {
      case 'interaction.start': {
        const id = result['sessionId'];
        if (typeof id !== 'string') return;
        if (this.#flowSessions.has(id)) add('FLOW-START-7', `interaction.start returned session id ${JSON.stringify(id)}, which an earlier start already returned`);
        const state = result['state'];
        this.#flowSessions.set(id, { states: isInteractionState(state) ? [state] : [], completes: 0, prompted: isRecord(result['initialPrompt']) });
        for (const problem of promptProblems(result['initialPrompt'])) add(problem.requirement, problem.message);
        const waiting = this.#orphans.filter((orphan) => orphan.params?.['sessionId'] === id);
        this.#orphans = this.#orphans.filter((orphan) => orphan.params?.['sessionId'] !== id);
        for (const orphan of waiting) this.#flowServerRequest(orphan.method, orphan.params, orphan.add);
        return;
      }
      // An accepted interaction.respond implies processing, but over Streamable HTTP its result and the
      // server's next request travel on different streams and may be seen in either order: the
      // state is taken from what the server says (prompts, complete, getState), not inferred here.
      case 'interaction.cancel':
        if (sessionId !== undefined && result['cancelled'] === true) {
          this.#observeState(sessionId, 'cancelled', add);
          const session = this.#flowSessions.get(sessionId);
          if (session) session.cancelledByAnswer = true;
        }
        return;
      case 'interaction.getState':
        if (sessionId !== undefined && isInteractionState(result['state'])) this.#observeState(sessionId, result['state'], add);
        return;
      default:
        return;
    }
  }

  #flowServerRequest(method: string, params: Record<string, unknown> | undefined, add: (r: string, t: string) => void, final = false): void {
    if (method !== 'interaction.prompt' && method !== 'interaction.continue' && method !== 'interaction.complete') return;
    const sessionId = params?.['sessionId'];
    if (typeof sessionId !== 'string') return;
    let session = this.#flowSessions.get(sessionId);
    if (!session) {
      // Over Streamable HTTP the first prompt may be seen before the start result that names its
      // session (another stream): judged once that result arrives, or at the end.
      if (!final && [...this.#pending.values()].some((request) => request.method === 'interaction.start' && request.from === 'client-to-server')) {
        this.#orphans.push({ method, params, add });
        return;
      }
      // No start of this connection named it: a session of another connection, which 000 allows
      // (FLOW-SEC-4); it is followed from here on, its earlier states unknown.
      session = { states: [], completes: 0, prompted: false, startedElsewhere: true };
      this.#flowSessions.set(sessionId, session);
    }
    const state = session.states.at(-1);
    const secondComplete = method === 'interaction.complete' && session.completes > 0;
    // A session cancelled by an answer may still see requests the server sent before it (HTTP streams are not ordered with each other).
    const unordered = session.cancelledByAnswer === true && this.#options.upstream === 'http';
    if (state !== undefined && isTerminal(state) && !secondComplete && !unordered) {
      add('FLOW-SM-10', `${method} for session ${JSON.stringify(sessionId)}, which is already ${state}`);
      return;
    }
    for (const problem of [...promptProblems(params?.['prompt'] ?? params?.['nextPrompt']), ...progressProblems(params?.['progress'])]) add(problem.requirement, problem.message);
    if (method === 'interaction.complete') {
      session.completes++;
      if (session.completes > 1) {
        add('FLOW-SM-6', `a second interaction.complete for session ${JSON.stringify(sessionId)}`);
        return;
      }
      this.#observeState(sessionId, 'completed', add);
    } else if (method === 'interaction.prompt' || isRecord(params?.['nextPrompt'])) {
      session.prompted = true;
      this.#observeState(sessionId, 'waiting_user', add);
    }
  }

  /** Adds an observed state of a session and judges it against the transition table (FLOW-SM-2/3). */
  #observeState(sessionId: string, state: InteractionState, add: (r: string, t: string) => void): void {
    const session = this.#flowSessions.get(sessionId);
    if (!session) return;
    session.states.push(state);
    const illegal = findIllegalObservation(session.states.slice(-2));
    if (illegal) {
      add(isTerminal(illegal.from) ? 'FLOW-SM-3' : 'FLOW-SM-2', `session ${JSON.stringify(sessionId)} went from ${illegal.from} to ${illegal.to}, which the transition table does not allow`);
    }
  }

  // ----- schemas -------------------------------------------------------------------------------------

  /**
   * The schemas' verdict on one message, as the runner reaches it (src/schema/findings.ts): a broken
   * shape is a violation of the requirement its place belongs to; members the documents do not
   * name, and places no catalog requirement owns, are never violations.
   */
  #schema(direction: Flow, message: Record<string, unknown>, requestMethod: string | undefined, add: (r: string, t: string) => void, taskRequested?: boolean): void {
    const { registry, requirements } = this.#options;
    const version = this.#version ?? (isProtocolVersion(this.#requestedVersion) ? this.#requestedVersion : undefined);
    const leg = direction === 'client-to-server' ? this.#options.downstream : this.#options.upstream;
    const { schemas, findings } = judgeMessage(registry, requirements, message, {
      direction,
      ...(version !== undefined ? { protocolVersion: version } : {}),
      ...(requestMethod !== undefined ? { requestMethod } : {}),
      ...(taskRequested !== undefined ? { taskRequested } : {}),
      ...(leg === 'webtransport' ? { webTransport: true } : {}),
    });
    for (const schema of schemas) for (const id of registry.requirementsOf(schema.id)) this.#checked.add(id);
    for (const finding of findings) {
      if (finding.kind !== 'violation' || finding.requirement === undefined) continue;
      const issue = finding.issues[0];
      const where = finding.pointer === '' ? '(the message itself)' : finding.pointer;
      add(finding.requirement, `breaks schema ${finding.schema} at ${where}: ${issue?.message ?? 'invalid'}`);
    }
  }

  #add(direction: Flow, seq: number, at: number, subject: string, requirement: string, message: string, actual?: unknown): void {
    const { requirements } = this.#options;
    if (!requirements.has(requirement)) return;
    const level = requirements.get(requirement).level;
    this.#checked.add(requirement);
    // INFO requirements describe what was seen; they are never violations.
    if (failureVerdict(level) === 'INFO') return;
    // One message breaking one requirement is one violation, however many rules saw it.
    if (this.#violations.some((v) => v.seq === seq && v.requirement === requirement && v.direction === direction && v.subject === subject)) return;
    const violation: Violation = { session: this.#options.session, seq, at, direction, subject, requirement, level, message };
    if (actual !== undefined) violation.actual = actual;
    this.#violations.push(violation);
  }
}

/** `method`, or `response <id>`, for the console line. */
export function subjectOf(message: unknown): string {
  if (!isRecord(message)) return 'message';
  if (typeof message['method'] === 'string') return 'id' in message ? `${message['method']} ${JSON.stringify(message['id'])}` : message['method'];
  return `response ${JSON.stringify(message['id'])}`;
}
