// The live validator of one proxied session: every message in both directions judged by the judge
// (src/judge: its JSON-RPC envelope, the schema for its method, version and direction, the MCP Flow
// prompt rules), and the rules a passive observer can judge from the message stream: the MCP
// lifecycle, request/response pairing, ids, progress and cancellation, capability gates, the MCP
// Flow session rules and the WebTransport initialize negotiation. Each violation cites the
// requirement it breaks, through the judge's rule tables (src/judge/stream-rules.ts).
import {
  ENVELOPE_REQUIREMENTS,
  envelopeProblems,
  Exchange,
  faultRequirement,
  flowMessageProblems,
  judgeMessage,
  PROMPT_RULE_REQUIREMENTS,
  STREAM_RULES as RULE,
  WIRE_FAULT_REQUIREMENTS,
  WT_ENVELOPE_REQUIREMENTS,
  WT_STREAM_RULES as WT_RULE,
  type MessageContext,
} from '../../judge/index.js';
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
import type { SchemaRegistry } from '../../schema/index.js';
import type { ConnectionFault, TransportKind } from '../../transport/connection.js';
import { isRecord } from '../../wire/index.js';
import { cborIdIsFloat } from './cbor-id.js';
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

/** Requirements the rules below can cite (besides the schemas' own): derived from the judge's rule tables. */
export const RULE_REQUIREMENTS: readonly string[] = [...new Set([...ENVELOPE_REQUIREMENTS, ...PROMPT_RULE_REQUIREMENTS, ...Object.values(RULE)])];

/** Rules that only apply on a WebTransport leg. */
export const WT_RULE_REQUIREMENTS: readonly string[] = [...new Set([...WT_ENVELOPE_REQUIREMENTS, ...Object.values(WT_RULE), ...WIRE_FAULT_REQUIREMENTS])];

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
  /** The context each message is judged in (the version the initialize exchange settled on, the request a response answers). */
  readonly #exchange = new Exchange();
  /** Requirements judged in this session (schemas used, rules that applied). */
  readonly #checked = new Set<string>();
  #phase: Phase = 'new';
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
      this.#add(direction, seq, at, subjectOf(message), WT_RULE.cborFloatId, `the id ${JSON.stringify((message as { id?: unknown }).id)} is encoded as a CBOR float, not a CBOR integer`, message);
    }
    const items = Array.isArray(message) ? message : [message];
    if (Array.isArray(message) && message.length === 0) this.#add(direction, seq, at, 'batch', RULE.emptyBatch, 'an empty JSON array is not a JSON-RPC message', message);
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
      this.#add(answerer, this.#lastSeq, Date.now(), `${request.method} ${JSON.stringify(request.id)}`, RULE.answeredTwiceOrNever, `request ${JSON.stringify(request.id)} (${request.method}) was never answered before the session ended`);
    }
    this.#pending.clear();
    // Requests for a session no start of this connection named: a session of another connection (FLOW-SEC-4).
    for (const orphan of this.#orphans.splice(0)) this.#flowServerRequest(orphan.method, orphan.params, orphan.add, true);
    for (const [id, session] of this.#flowSessions) {
      const state = session.states.at(-1);
      if (session.startedElsewhere || session.prompted || session.completes > 0 || (state !== undefined && isTerminal(state))) continue;
      this.#add('server-to-client', this.#lastSeq, Date.now(), `session ${JSON.stringify(id)}`, RULE.noFirstPrompt, `session ${JSON.stringify(id)} started without initialPrompt never received its first interaction.prompt`);
    }
    return this.#violations.slice(before);
  }

  // ----- one message -----------------------------------------------------------------------------

  #observeOne(direction: Flow, message: unknown, seq: number, at: number): void {
    const leg = direction === 'client-to-server' ? this.#options.downstream : this.#options.upstream;
    const subject = subjectOf(message);
    const add = (requirement: string, text: string) => this.#add(direction, seq, at, subject, requirement, text, message);
    const context = this.#exchange.context(direction, message);
    const wasNotification = this.#lastWasNotification[other(direction)];
    this.#lastWasNotification[direction] = false;
    if (this.#envelope(message, leg, add)) this.#streamRules(direction, message as Record<string, unknown>, wasNotification, add);
    if (context) this.#judge(message as Record<string, unknown>, context, leg, add);
  }

  /** The rules of the message stream, for a message whose envelope can be read. */
  #streamRules(direction: Flow, m: Record<string, unknown>, afterNotification: boolean, add: (requirement: string, text: string) => void): void {
    if (typeof m['method'] !== 'string') {
      this.#onResponse(direction, m, afterNotification, add);
      return;
    }
    const method = m['method'];
    const params = isRecord(m['params']) ? m['params'] : undefined;
    if ('id' in m) this.#onRequest(direction, method, m['id'] as string | number, params, add);
    else {
      this.#onNotification(direction, method, params, add);
      this.#lastWasNotification[direction] = true;
    }
  }

  /** The JSON-RPC envelope rules (src/judge/envelope.ts); false when the message is too broken to judge further. */
  #envelope(message: unknown, leg: TransportKind, add: (requirement: string, text: string) => void): boolean {
    const envelope = envelopeProblems(message, { webTransport: leg === 'webtransport' });
    for (const problem of envelope.problems) add(problem.requirement, problem.message);
    return envelope.readable;
  }

  #onRequest(
    direction: Flow,
    method: string,
    id: string | number,
    params: Record<string, unknown> | undefined,
    add: (requirement: string, text: string) => void,
  ): void {
    const key = `${direction}:${idKey(id)}`;
    if (this.#usedIds[direction].has(idKey(id))) add(RULE.idReused, `request id ${JSON.stringify(id)} was already used by the ${senderOf(direction)} in this session`);
    this.#usedIds[direction].add(idKey(id));
    const secondInitialize = direction === 'client-to-server' && method === 'initialize' && (this.#phase === 'answered' || this.#phase === 'ready');
    this.#lifecycleOnRequest(direction, method, id, params, add);
    const refusal = this.#gates(direction, method, 'request', add);
    const meta = isRecord(params?.['_meta']) ? params['_meta'] : undefined;
    const token = meta?.['progressToken'];
    const request: PendingRequest = { method, from: direction, id, cancelled: false, params };
    if (refusal) request.mustRefuse = refusal;
    else if (secondInitialize) request.mustRefuse = { requirement: RULE.secondInitializeServed, why: 'a second initialize on an initialized session' };
    if (isId(token)) {
      request.progressToken = token;
      this.#tokens.set(`${direction}:${idKey(token)}`, { requestKey: key, finished: false });
    }
    this.#pending.set(key, request);
    if (direction === 'server-to-client') this.#flowServerRequest(method, params, add);
    else if (method === 'interaction.respond') {
      const session = this.#flowSessions.get(String(params?.['sessionId']));
      const state = session?.states.at(-1);
      if (session && state !== 'waiting_user') add(RULE.respondWhileNotWaiting, `interaction.respond for session ${JSON.stringify(params?.['sessionId'])}, which is ${state}, not waiting_user`);
    }
  }

  #lifecycleOnRequest(direction: Flow, method: string, id: string | number, params: Record<string, unknown> | undefined, add: (r: string, t: string) => void): void {
    if (direction === 'client-to-server') {
      if (method === 'initialize') {
        if (this.#phase === 'new' || this.#phase === 'failed') {
          this.#phase = 'initializing';
          this.#clientCapabilities = params?.['capabilities'];
        }
        return;
      }
      if (method === 'ping') return;
      if (this.#phase === 'new') add(RULE.requestBeforeInitialize, `${method} was sent before initialize: initialize must be the first request`);
      else if (this.#phase === 'initializing') add(RULE.requestBeforeInitializeAnswer, `${method} was sent before the initialize response arrived`);
      else if (this.#phase === 'answered') add(RULE.requestBeforeInitialized, `${method} was sent before notifications/initialized`);
      else if (this.#phase === 'failed') add(RULE.requestAfterFailedInitialize, `${method} was sent after initialize failed`);
      return;
    }
    if (method !== 'ping' && this.#phase !== 'ready') add(RULE.serverBeforeInitialized, `the server sent the request ${method} before notifications/initialized`);
  }

  #onNotification(direction: Flow, method: string, params: Record<string, unknown> | undefined, add: (r: string, t: string) => void): void {
    if (direction === 'client-to-server' && method === 'notifications/initialized' && this.#phase === 'answered') this.#phase = 'ready';
    if (direction === 'server-to-client' && this.#phase !== 'ready' && !['notifications/message', 'notifications/progress', '$/shutdown'].includes(method)) {
      add(RULE.serverBeforeInitialized, `the server sent the notification ${method} before notifications/initialized`);
    }
    this.#gates(direction, method, 'notification', add);
    if (method === 'notifications/progress') this.#progress(direction, params, add);
    else if (method === 'notifications/cancelled' || method === '$/cancel') this.#cancel(direction, method, params, add);
    else if (method === 'notifications/resources/updated' && direction === 'server-to-client') {
      const uri = params?.['uri'];
      if (typeof uri === 'string' && !this.#subscriptions.has(uri)) add(RULE.updateWithoutSubscription, `notifications/resources/updated for ${uri}, which the client never subscribed to`);
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
        add(RULE.flowMethodWrongWay, `${method} is a ${definition.direction} ${definition.kind}; the ${sender} sent it`);
        // Served as if it went the right way breaks the direction rule itself; refused with another code, FLOW-CAP-9.
        return {
          requirement: RULE.flowMethodWrongWayServed,
          onResult: RULE.flowMethodWrongWay,
          why: `${method} sent the wrong way must be answered -32601 Method not found (or -32001 for a session the receiver does not have)`,
          codes: [-32601, -32001],
        };
      }
      if (method === '$/cancel' && sender === 'server') add(WT_RULE.dollarCancelMisused, '$/cancel is sent by clients only');
      return undefined;
    }
    if (this.#version !== undefined && definition.system === 'core' && !isDefinedIn(method, this.#version)) {
      add(RULE.methodNotInVersion, `${method} is not defined in the negotiated protocol version ${this.#version}`);
      return undefined;
    }
    const gate = this.#version !== undefined || this.#phase === 'ready' ? capabilityGate(method, this.#version) : undefined;
    if (!gate) return undefined;
    if (gate.declaredBy === 'server' && this.#serverCapabilities !== undefined && !declares(this.#serverCapabilities, gate.path)) {
      if (kind === 'request' && sender === 'client') {
        add(RULE.serverCapabilityUndeclared, `${method} needs the server capability ${gate.path}, which the server did not declare`);
        return gate.path === 'resources.subscribe'
          ? { requirement: RULE.undeclaredSubscribeServed, why: `${method} without resources.subscribe declared` }
          : { requirement: RULE.undeclaredFeatureServed, why: `${method} is a feature (${gate.path}) the server did not declare` };
      }
      else if (sender === 'server' && gate.path.endsWith('listChanged')) add(RULE.listChangedUndeclared, `${method} needs ${gate.path}: true, which the server did not declare`);
      else if (sender === 'server' && gate.path === 'logging') add(RULE.loggingUndeclared, `${method} was sent although the server did not declare logging`);
    }
    if (gate.declaredBy === 'client' && sender === 'server' && kind === 'request' && !declares(this.#clientCapabilities, gate.path)) {
      add(RULE.clientCapabilityUndeclared, `${method} needs the client capability ${gate.path}, which the client did not declare`);
    }
    return undefined;
  }

  #progress(direction: Flow, params: Record<string, unknown> | undefined, add: (r: string, t: string) => void): void {
    const token = params?.['progressToken'];
    const entry = this.#tokens.get(`${other(direction)}:${idKey(token)}`);
    if (!entry) {
      add(RULE.progressTokenUnknown, `progress token ${JSON.stringify(token)} was never supplied by the ${senderOf(other(direction))}`);
      return;
    }
    if (entry.finished) {
      add(RULE.progressAfterAnswer, `progress for token ${JSON.stringify(token)} after its request was answered`);
      return;
    }
    const progress = params?.['progress'];
    if (typeof progress === 'number') {
      if (entry.last !== undefined && !(progress > entry.last)) add(RULE.progressNotIncreasing, `progress ${progress} does not increase on ${entry.last}`);
      entry.last = progress;
    }
  }

  #cancel(direction: Flow, method: string, params: Record<string, unknown> | undefined, add: (r: string, t: string) => void): void {
    const requestId = params?.['requestId'];
    const key = `${direction}:${idKey(requestId)}`;
    const own = this.#pending.get(key) ?? this.#answered.get(key);
    if (!own && !this.#usedIds[direction].has(idKey(requestId))) {
      add(method === '$/cancel' ? WT_RULE.dollarCancelMisused : RULE.cancelsUnknownRequest, `${method} names ${JSON.stringify(requestId)}, which the ${senderOf(direction)} never sent`);
      return;
    }
    if (own?.method === 'initialize' && direction === 'client-to-server') add(RULE.cancelsInitialize, `${method} cancels the initialize request`);
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
      if (afterNotification) add(RULE.answersNotification, 'an error response (id null) answers a notification');
      return;
    }
    const requester = other(direction);
    const key = `${requester}:${idKey(id)}`;
    const request = this.#pending.get(key);
    if (!request) {
      const answered = this.#answered.get(key);
      if (answered) {
        add(RULE.answeredTwiceOrNever, `a second answer to ${answered.method} request ${JSON.stringify(id)}`);
        return;
      }
      const retyped = [...this.#pending.values()].find((p) => p.from === requester && String(p.id) === String(id));
      if (retyped) {
        const outsideBinding = this.#options.upstream !== 'webtransport' && direction === 'server-to-client';
        add(outsideBinding ? RULE.idRetyped : RULE.answersUnknownId, `answers id ${JSON.stringify(retyped.id)} (${retyped.method}) with the id ${JSON.stringify(id)} of another JSON type`);
      } else {
        add(RULE.answersUnknownId, `answers id ${JSON.stringify(id)}, which no ${senderOf(requester)} request in flight has`);
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
        if ('result' in message) add(WT_RULE.cancelledWithDollarAnsweredWithResult, `request ${JSON.stringify(id)} (${request.method}) was cancelled with $/cancel but answered with a result, not an error`);
      } else add(RULE.answeredAfterCancel, `request ${JSON.stringify(id)} (${request.method}) was answered after the client cancelled it`);
    }
    const refusal = request.mustRefuse;
    if (refusal) {
      const code = isRecord(message['error']) ? message['error']['code'] : undefined;
      if ('result' in message) add(refusal.onResult ?? refusal.requirement, `${refusal.why}, yet it was answered with a result`);
      else if (refusal.codes !== undefined && !refusal.codes.includes(code as number)) add(refusal.requirement, `${refusal.why}, yet it was answered with error ${String(code)}`);
    }
    if ('result' in message && isRecord(message['result'])) {
      const data = Object.keys(message['result']).filter((name) => name !== '_meta');
      if (data.length > 0 && request.method === 'ping') add(RULE.pingResultNotEmpty, `ping was answered with a non-empty result (${data.join(', ')})`);
      else if (data.length > 0 && ['logging/setLevel', 'resources/subscribe', 'resources/unsubscribe'].includes(request.method)) {
        add(RULE.emptyResultNotEmpty, `${request.method} was answered with a non-empty result (${data.join(', ')})`);
      }
    }
    if (request.method === 'initialize' && direction === 'server-to-client' && !refusal) this.#onInitializeAnswer(message, add);
    if (request.method === 'resources/subscribe' && 'result' in message && typeof request.params?.['uri'] === 'string') this.#subscriptions.add(request.params['uri']);
    if ('result' in message) this.#flowResult(request, message['result'] as Record<string, unknown>, add);
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
      if (encoding !== 'json') add(WT_RULE.encodingWithoutOffer, `the client offered no encodings, yet the server selected ${JSON.stringify(encoding)}`);
      return;
    }
    if (encoding !== 'json' && !offered.includes(encoding)) {
      add(WT_RULE.encodingNotOffered, `selected ${JSON.stringify(encoding)}, which the client did not offer (${offered.join(', ')})`);
      return;
    }
    // Every implementation speaks json (WT-ENC-8): an encoding offered after json cannot be the first supported one.
    const jsonAt = offered.indexOf('json');
    if (jsonAt >= 0 && offered.indexOf(encoding) > jsonAt) add(WT_RULE.encodingNotPreferred, `selected ${JSON.stringify(encoding)} although the client preferred "json" (offered ${offered.join(', ')})`);
  }

  // ----- MCP Flow sessions -------------------------------------------------------------------------

  #flowResult(request: PendingRequest, result: Record<string, unknown>, add: (r: string, t: string) => void): void {
    if (!isRecord(result)) return;
    const sessionId = typeof request.params?.['sessionId'] === 'string' ? request.params['sessionId'] : undefined;
    switch (request.method) {
      case 'interaction.start': {
        const id = result['sessionId'];
        if (typeof id !== 'string') return;
        if (this.#flowSessions.has(id)) add(RULE.sessionIdReused, `interaction.start returned session id ${JSON.stringify(id)}, which an earlier start already returned`);
        const state = result['state'];
        this.#flowSessions.set(id, { states: isInteractionState(state) ? [state] : [], completes: 0, prompted: isRecord(result['initialPrompt']) });
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
      add(RULE.requestForTerminalSession, `${method} for session ${JSON.stringify(sessionId)}, which is already ${state}`);
      return;
    }
    if (method === 'interaction.complete') {
      session.completes++;
      if (session.completes > 1) {
        add(RULE.secondComplete, `a second interaction.complete for session ${JSON.stringify(sessionId)}`);
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
      add(isTerminal(illegal.from) ? RULE.transitionFromTerminal : RULE.illegalTransition, `session ${JSON.stringify(sessionId)} went from ${illegal.from} to ${illegal.to}, which the transition table does not allow`);
    }
  }

  // ----- the judge ---------------------------------------------------------------------------------

  /**
   * The judge's verdict on one message in its context, as the runner reaches it: a broken shape is
   * a violation of the requirement its place belongs to (members the documents do not name, and
   * places no catalog requirement owns, are never violations); the prompts and progress a server
   * sends, by the MCP Flow prompt rules.
   */
  #judge(message: Record<string, unknown>, context: MessageContext, leg: TransportKind, add: (r: string, t: string) => void): void {
    const { registry, requirements } = this.#options;
    const { schemas, findings } = judgeMessage(registry, requirements, message, { ...context, ...(leg === 'webtransport' ? { webTransport: true } : {}) });
    for (const schema of schemas) for (const id of registry.requirementsOf(schema.id)) this.#checked.add(id);
    for (const finding of findings) {
      if (finding.kind !== 'violation' || finding.requirement === undefined) continue;
      const issue = finding.issues[0];
      const where = finding.pointer === '' ? '(the message itself)' : finding.pointer;
      add(finding.requirement, `breaks schema ${finding.schema} at ${where}: ${issue?.message ?? 'invalid'}`);
    }
    if (context.direction === 'server-to-client') for (const problem of flowMessageProblems(message, context.requestMethod)) add(problem.requirement, problem.message);
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
