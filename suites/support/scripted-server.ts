// The scripted server every client case plays (docs/client-scenarios.md): wait for the client's
// initialize and answer it, then serve the standard requests (ping, tools/list with the fixture
// pages, tools/call of the fixture tools) while waiting for whatever the case is about. Every
// message the client sent passes through one ScriptedServer, so whole-session checks (request ids
// never reused, cancels naming in-flight requests, no answer to a notification) see all of them.
import {
  CaseMisuseError,
  initializeResult,
  peerEvidence,
  TargetPreconditionError,
  type InitializeResultOptions,
  type CaseContext,
  type ClientExit,
  type Discovery,
  type Applicability,
} from '../../src/harness/index.js';
import { errorResponse, isRequest, isResponse, isResponseTo, paramsOf, request, resultResponse, type Message, type RequestId } from '../../src/protocol/jsonrpc.js';
import type { CloseInfo, ConnectionFault, ReceivedMessage } from '../../src/transport/connection.js';
import { ConnectionClosedError, ConnectionError } from '../../src/transport/errors.js';
import { isRecord } from '../../src/wire/index.js';

// The message model (types, guards, builders) is src/protocol/jsonrpc.ts's; the client cases take it from here.
export { errorOf, errorResponse, isNotification, isRequest, isResponse, isResponseTo, notification, paramsOf, request, resultResponse, type Message, type RequestId } from '../../src/protocol/jsonrpc.js';

/** How long the client may take to send its initialize once connected (before --timeout-scale). */
export const INITIALIZE_WAIT_MS = 15_000;
/** How long the client may take for one scenario step (before --timeout-scale). */
export const STEP_WAIT_MS = 4_000;
/** "Nothing happens" waits: short and fixed (before --timeout-scale). */
export const QUIET_MS = 500;
/** How long a client may take to finish its scenario and exit once the server has said its last word. */
export const EXIT_WAIT_MS = 5_000;

/** JSON-RPC and MCP Flow codes the cases name. */
export const CODE = {
  parseError: -32700,
  methodNotFound: -32601,
  invalidParams: -32602,
  sessionNotFound: -32001,
  cancelled: -32000,
  streamInjection: -32002,
  invalidStreamReference: -32001,
} as const;

// ---- the fixture the scripted server offers -------------------------------------------------------

const objectSchema = (properties: Record<string, unknown> = {}) => ({ type: 'object', properties });

/** The fixture tools, by name. */
export const FIXTURE_TOOLS = {
  echo: { name: 'echo', description: 'Answers with its arguments as text.', inputSchema: objectSchema({ text: { type: 'string' } }) },
  download: { name: 'download', description: 'Sends a file on an execution stream (WebTransport).', inputSchema: objectSchema() },
  slow: { name: 'slow', description: 'Takes long: its call is answered only when cancelled.', inputSchema: objectSchema() },
  interview: { name: 'interview', description: 'An MCP Flow interactive tool asking two questions.', inputSchema: objectSchema() },
} as const;

/**
 * tools/list pages, chained by cursors. The cursors are deliberately awkward (spaces, non-ASCII,
 * '+', '=', '/'): a client that decodes, trims or re-encodes one sends back something else (CORE-PAGE-4).
 */
export const TOOL_PAGES: readonly { cursor: string | undefined; tools: readonly Message[]; nextCursor?: string }[] = [
  { cursor: undefined, tools: [FIXTURE_TOOLS.echo], nextCursor: ' page 2 · ä/+= ' },
  { cursor: ' page 2 · ä/+= ', tools: [FIXTURE_TOOLS.download, FIXTURE_TOOLS.slow], nextCursor: 'eyJwYWdlIjozfQ==' },
  { cursor: 'eyJwYWdlIjozfQ==', tools: [FIXTURE_TOOLS.interview] },
];

/** The `tools-call` context of a plain echo call. */
export const ECHO_CALL = { tool: 'echo', arguments: { text: 'hello from the conformance harness' } } as const;

/** The MCP Flow `capabilities` result of the scripted server: interactive (000 §Server Capabilities). */
export const FLOW_CAPABILITIES = {
  interactive: true,
  version: '0.1.0',
  features: { statefulSessions: true, progressTracking: true, validation: true, multiplePromptTypes: true, sessionPersistence: false },
} as const;

/** Client-to-server MCP Flow requests: the interaction cases answer them, the fixture never does. */
export const FLOW_CLIENT_METHODS = new Set(['interaction.start', 'interaction.respond', 'interaction.cancel', 'interaction.getState']);

// ---- message shapes ---------------------------------------------------------------------------------

/** Short description of a message for check details. */
export function describe(message: unknown): string {
  if (!isRecord(message)) return JSON.stringify(message)?.slice(0, 120) ?? String(message);
  if (typeof message.method === 'string') return 'id' in message ? `request ${message.method} (id ${JSON.stringify(message.id)})` : `notification ${message.method}`;
  return `${'error' in message ? 'error' : 'result'} for id ${JSON.stringify(message.id)}`;
}

// ---- applicability ----------------------------------------------------------------------------------

/** The encodings the client offered in its initialize (`params.transport.encodings`), as discovery saw them. */
export function offeredEncodings(discovery: Discovery): string[] {
  const encodings = isRecord(discovery.transport) ? discovery.transport.encodings : undefined;
  return Array.isArray(encodings) ? encodings.filter((e): e is string => typeof e === 'string') : [];
}

/** Applicability: the client offered CBOR. */
export function offersCbor(discovery: Discovery): Applicability {
  return offeredEncodings(discovery).includes('cbor') ? true : 'the client does not offer the "cbor" encoding';
}

/** Applicability: the client did not declare `sampling`. */
export function withoutSampling(discovery: Discovery): Applicability {
  return isRecord(discovery.capabilities) && Object.hasOwn(discovery.capabilities, 'sampling')
    ? 'the client declares sampling (the case is about a client that does not)'
    : true;
}

// ---- the scripted server ------------------------------------------------------------------------------

export interface InitializeAnswer {
  /** Options for the harness's standard initialize result (protocolVersion, capabilities, WebTransport `transport` members). */
  result?: InitializeResultOptions;
  /** Answer with this error instead of a result. */
  error?: { code: number; message: string };
  /** Wait this long (before --timeout-scale) before answering, watching what the client sends meanwhile. */
  delayMs?: number;
}

export interface ServeOptions {
  /**
   * Handles a tools/call itself (the case's tool); return false to leave it to the fixture.
   * Runs inside the serving loop: the client's other messages wait until it returns.
   */
  onCall?: (request: Message & { id: RequestId }, server: ScriptedServer) => Promise<boolean>;
}

/** One message the client sent, in arrival order, with what the server knew when it came. */
export interface Seen {
  received: ReceivedMessage;
  /** The initialize exchange was over (answered) when it came. */
  afterInitialize: boolean;
}

/** The server side of one client case. */
export class ScriptedServer {
  readonly ctx: CaseContext;
  /** Every message the client sent that the server took, in arrival order. */
  readonly seen: Seen[] = [];
  /** The client's initialize request, once it came. */
  initialize: (Message & { id: RequestId }) | undefined;
  /** The initialize result sent, when the server answered with one. */
  initializeResult: Message | undefined;
  /** Ids of the requests the server sent (the only ids a response from the client may carry). */
  readonly sentRequestIds = new Set<RequestId>();
  #answered = false;
  /** MCP Flow requests from the client, kept for the case that drives the session (never answered by the fixture). */
  readonly #held: ReceivedMessage[] = [];
  readonly #options: ServeOptions;

  #closed: CloseInfo | undefined;

  constructor(ctx: CaseContext, options: ServeOptions = {}) {
    this.ctx = ctx;
    this.#options = options;
    void ctx.connection.closed.then((info) => (this.#closed = info));
  }

  /**
   * What the harness saw of the client apart from what it delivered: frames its session refused
   * (with the error it answered), the session closed by the client, the client's exit status and
   * last stderr line. For messages that say why something the case waited for did not come.
   */
  observed(): string {
    const evidence = peerEvidence(this.ctx.connection, this.#closed, this.ctx.client, 'client');
    if (evidence) return evidence.text;
    return `the session is ${this.ctx.connection.isClosed ? 'closed' : 'still open'} and the client ${this.ctx.client?.exitStatus ? exitText(this.ctx.client.exitStatus) : 'is still running'}`;
  }

  /** How many frames the session has refused so far: `absent` tells by it which came later. */
  mark(): number {
    return unreadable(this.ctx).length;
  }

  /**
   * Before judging that something the case waited for (`what`) did not come: when the session
   * refused frames the client sent since `mark`, it may have been among them, so its absence
   * cannot be judged. Throws the case's failed precondition then, charged to what the refused
   * frames broke (precondition); returns otherwise.
   */
  absent(what: string, mark = 0): void {
    if (unreadable(this.ctx).length > mark) throw this.precondition(`${what} (no readable one came)`);
  }

  /**
   * The case's failed precondition: `what` did not happen. The message adds what was observed
   * instead; a frame the session refused charges the requirement its sending broke (e.g. WT-ENC-1
   * for a CBOR initialize), else `requirement` (default: the case's first).
   */
  precondition(what: string, requirement?: string): TargetPreconditionError {
    const evidence = peerEvidence(this.ctx.connection, this.#closed, this.ctx.client, 'client');
    const charged = evidence?.requirement ?? requirement;
    return new TargetPreconditionError(`${what}: ${this.observed()}`, charged !== undefined ? { requirement: charged } : {});
  }

  /**
   * Takes the next message from the client (any kind) within `timeoutMs` (scaled); undefined when
   * none came or the connection closed.
   */
  async take(timeoutMs: number): Promise<ReceivedMessage | undefined> {
    try {
      const received = await this.ctx.next(undefined, { timeoutMs });
      this.seen.push({ received, afterInitialize: this.#answered });
      return received;
    } catch (error) {
      if (this.ctx.signal.aborted) throw error;
      if (error instanceof ConnectionClosedError) return this.#lastDelivered();
      if (error instanceof ConnectionError) return undefined;
      throw error;
    }
  }

  /**
   * A message the client sent just before it closed may still be on its way into the queue when the
   * close is seen (the session delivers asynchronously): give it a moment, then take what is left.
   */
  async #lastDelivered(): Promise<ReceivedMessage | undefined> {
    await new Promise((resolve) => setTimeout(resolve, 50));
    if (this.ctx.connection.pending().length === 0) return undefined;
    const received = await this.ctx.connection.next();
    this.seen.push({ received, afterInitialize: this.#answered });
    return received;
  }

  /**
   * Waits for the client's initialize (it must be the first thing it sends, but that is a case's
   * check: this takes whatever comes until an initialize). No initialize is a precondition failure.
   */
  async awaitInitialize(): Promise<Message & { id: RequestId }> {
    const deadline = Date.now() + this.ctx.scaled(INITIALIZE_WAIT_MS);
    for (;;) {
      const left = Math.max(1, (deadline - Date.now()) / this.ctx.scaled(1));
      const received = await this.take(left);
      if (received === undefined) throw this.precondition(`the client sent no initialize request within ${this.ctx.scaled(INITIALIZE_WAIT_MS)} ms`, 'CORE-LIFE-1');
      if (isRequest(received.message, 'initialize')) {
        this.initialize = received.message;
        return received.message;
      }
    }
  }

  /** Answers the initialize request as `answer` says. */
  async answerInitialize(answer: InitializeAnswer = {}): Promise<void> {
    const request = this.initialize;
    if (!request) throw new CaseMisuseError('answerInitialize called before awaitInitialize took the client\'s initialize');
    if (answer.delayMs !== undefined) await this.collect(answer.delayMs);
    if (answer.error) {
      await this.send(errorResponse(request.id, answer.error.code, answer.error.message));
    } else {
      this.initializeResult = initializeResult(this.ctx.connection, request, answer.result);
      await this.send(resultResponse(request.id, this.initializeResult));
    }
    this.#answered = true;
  }

  /** initialize, answered: the start of every case that is not about the initialize exchange itself. */
  async open(answer: InitializeAnswer = {}): Promise<Message> {
    await this.awaitInitialize();
    await this.answerInitialize(answer);
    return this.initializeResult ?? {};
  }

  /** Transcript position of the server's answer to the client's initialize (Infinity when none was sent). */
  initializeAnsweredAt(): number {
    const request = this.initialize;
    if (!request) throw new CaseMisuseError('initializeAnsweredAt called before awaitInitialize took the client\'s initialize');
    return sentSeq(this.ctx, (m) => isResponseTo(m, request.id));
  }

  /** Takes every message for `ms` (scaled) without serving anything; returns what came. */
  async collect(ms: number): Promise<ReceivedMessage[]> {
    const deadline = Date.now() + this.ctx.scaled(ms);
    const got: ReceivedMessage[] = [];
    for (;;) {
      const left = (deadline - Date.now()) / this.ctx.scaled(1);
      if (left <= 0) return got;
      const received = await this.take(left);
      if (received === undefined) {
        if (this.ctx.connection.isClosed) return got;
        continue;
      }
      got.push(received);
    }
  }

  /**
   * Takes every message for `ms` (scaled), then serves them; returns the responses among them that
   * answer no request of the server's (what a notification or a dropped frame must not get).
   */
  async collectUnsolicited(ms: number): Promise<ReceivedMessage[]> {
    const quiet = await this.collect(ms);
    const unsolicited = quiet.filter((r) => isResponse(r.message) && !this.sentRequestIds.has(r.message.id as RequestId));
    for (const r of quiet) await this.serve(r.message);
    return unsolicited;
  }

  /**
   * Responses that answer no request of the server's among what the server took since `seen` held
   * `before` messages: what a notification or a dropped frame must not get, however late it came
   * within what the case took after it (on an ordered control stream, whatever came before the
   * answer to a later ping).
   */
  unsolicitedSince(before: number): Message[] {
    return this.seen
      .slice(before)
      .map((s) => s.received.message)
      .filter((m): m is Message => isResponse(m) && !this.sentRequestIds.has(m.id as RequestId));
  }

  /**
   * Sends `message` (one nothing may answer), takes what comes for `quietMs`, then pings (an
   * unanswered ping is a failed check of `requirement`): the responses to no request of the
   * server's that came meanwhile, up to the ping's answer, and the ping's answer.
   */
  async unansweredThenPing(requirement: string, message: Message, quietMs: number): Promise<{ answers: Message[]; ping: Message | undefined }> {
    const before = this.seen.length;
    await this.send(message);
    await this.collectUnsolicited(quietMs);
    const ping = await this.request(requirement, 'ping');
    return { answers: this.unsolicitedSince(before), ping };
  }

  /** Sends a message; false when the connection closed first. */
  async send(message: Message): Promise<boolean> {
    if (this.ctx.connection.isClosed) return false;
    try {
      await this.ctx.connection.send(message);
      return true;
    } catch (error) {
      if (error instanceof ConnectionError) return false;
      throw error;
    }
  }

  /**
   * A fresh request id, recorded as one the server sent (so the client's answer to it is not
   * unsolicited): for requests the case writes itself, e.g. as raw frames.
   */
  reserveRequestId(): number {
    const id = this.ctx.nextId();
    this.sentRequestIds.add(id);
    return id;
  }

  /** Sends a request to the client (fresh id) and returns its id. */
  async sendRequest(method: string, params?: Message): Promise<number> {
    const id = this.reserveRequestId();
    await this.send(request(id, method, params));
    return id;
  }

  /**
   * Serves the client's standard requests until a message matching `until` comes (returned, not
   * served), the client closes, or `timeoutMs` (scaled) passes (undefined then).
   */
  async serveUntil(until: (received: ReceivedMessage) => boolean, timeoutMs = STEP_WAIT_MS): Promise<ReceivedMessage | undefined> {
    const held = this.#held.findIndex(until);
    if (held >= 0) return this.#held.splice(held, 1)[0];
    const deadline = Date.now() + this.ctx.scaled(timeoutMs);
    for (;;) {
      const left = (deadline - Date.now()) / this.ctx.scaled(1);
      if (left <= 0) return undefined;
      const received = await this.take(left);
      if (received === undefined) {
        if (this.ctx.connection.isClosed) return undefined;
        continue;
      }
      if (until(received)) return received;
      await this.#dispatch(received);
    }
  }

  /** Serves a message, or holds it when it is an MCP Flow request the case answers itself. */
  async #dispatch(received: ReceivedMessage): Promise<void> {
    if (isRequest(received.message) && FLOW_CLIENT_METHODS.has(received.message.method)) {
      this.#held.push(received);
      return;
    }
    await this.serve(received.message);
  }

  /**
   * Sends a request to the client and serves its other requests until the answer comes. No answer
   * within `timeoutMs` is a failed check of `requirement` (or, when the session refused frames of
   * the client meanwhile, the case's failed precondition: see `absent`); returns the response or undefined.
   */
  async request(requirement: string, method: string, params?: Message, timeoutMs = STEP_WAIT_MS): Promise<Message | undefined> {
    const mark = this.mark();
    const id = await this.sendRequest(method, params);
    const answer = await this.serveUntil((r) => isResponseTo(r.message, id), timeoutMs);
    // An answer that came just before the client closed the session is in the transcript even when
    // the session ended before it could be taken.
    if (answer === undefined && this.ctx.connection.isClosed) {
      const late = clientMessages(this.ctx).find((m) => isResponseTo(m.message, id));
      if (late) return late.message;
    }
    if (answer === undefined) {
      this.absent(`an answer to ${method}`, mark);
      this.ctx.check(requirement, false, {
        message: `${method} sent to the client is answered`,
        expected: `a response with id ${id}`,
        actual: `${this.ctx.connection.isClosed ? 'the session closed first' : `no answer within ${this.ctx.scaled(timeoutMs)} ms`}: ${this.observed()}`,
      });
      return undefined;
    }
    return answer.message as Message;
  }

  /**
   * Serves the client until it sends a response with id null (a binding error about no request of
   * the server's, WT-ERR-3), returned; undefined when none came within `timeoutMs` (scaled).
   */
  async awaitNullIdResponse(timeoutMs: number): Promise<Message | undefined> {
    const answer = await this.serveUntil((r) => isResponse(r.message) && r.message.id === null, timeoutMs);
    return answer?.message as Message | undefined;
  }

  /** Answers one message from the client the way the fixture server does. */
  async serve(message: unknown): Promise<void> {
    if (!isRequest(message)) return; // notifications and responses need no answer
    const { id, method } = message;
    const params = paramsOf(message);
    switch (method) {
      case 'ping':
        await this.send(resultResponse(id, {}));
        return;
      case 'tools/list': {
        const cursor = typeof params.cursor === 'string' ? params.cursor : undefined;
        const page = TOOL_PAGES.find((p) => p.cursor === cursor);
        if (!page) {
          await this.send(errorResponse(id, CODE.invalidParams, `unknown cursor ${JSON.stringify(params.cursor)}`));
          return;
        }
        await this.send(resultResponse(id, { tools: page.tools, ...(page.nextCursor !== undefined ? { nextCursor: page.nextCursor } : {}) }));
        return;
      }
      case 'capabilities':
        await this.send(resultResponse(id, FLOW_CAPABILITIES));
        return;
      case 'tools/call': {
        if (this.#options.onCall && (await this.#options.onCall(message, this))) return;
        await this.answerCall(message);
        return;
      }
      default:
        await this.send(errorResponse(id, CODE.methodNotFound, `Method not found: ${method}`));
    }
  }

  /** The fixture's answer to a tools/call: echo answers its arguments; other tools a text result. */
  async answerCall(request: Message & { id: RequestId }): Promise<void> {
    const params = paramsOf(request);
    const name = params.name;
    if (typeof name !== 'string' || !Object.hasOwn(FIXTURE_TOOLS, name)) {
      await this.send(errorResponse(request.id, CODE.invalidParams, `Unknown tool: ${String(name)}`));
      return;
    }
    const text = name === 'echo' ? JSON.stringify(params.arguments ?? {}) : `${name} done`;
    await this.send(resultResponse(request.id, { content: [{ type: 'text', text }] }));
  }

  /** Serves the client until it sends a tools/call, which is returned unanswered. */
  async awaitCall(timeoutMs = STEP_WAIT_MS): Promise<(Message & { id: RequestId }) | undefined> {
    const call = await this.serveUntil((r) => isRequest(r.message, 'tools/call'), timeoutMs);
    return call?.message as (Message & { id: RequestId }) | undefined;
  }

  /**
   * Answers the case's tools/call as the fixture does, then serves the client until it exits: the
   * end of a case that worked while the call was in flight. Returns the exit status.
   */
  async finishCall(call: Message & { id: RequestId }): Promise<ClientExit | undefined> {
    await this.answerCall(call);
    return this.untilExit();
  }

  /**
   * Serves the client until its process exits (or `timeoutMs`, scaled): the end of a scenario.
   * Returns the exit status, or undefined when it was still running.
   */
  async untilExit(timeoutMs = EXIT_WAIT_MS): Promise<ClientExit | undefined> {
    const client = this.ctx.client;
    if (!client) return undefined;
    if (client.exitStatus) return client.exitStatus;
    let exited = false;
    void client.exited.then(() => (exited = true));
    const deadline = Date.now() + this.ctx.scaled(timeoutMs);
    while (!exited && Date.now() < deadline) {
      if (this.ctx.connection.isClosed) {
        await waitAtMost(client.exited, deadline - Date.now());
        break;
      }
      const received = await this.take(Math.min(200, (deadline - Date.now()) / this.ctx.scaled(1)));
      if (received) await this.#dispatch(received);
    }
    return client.exitStatus;
  }

  /** Requests the client sent (methods with ids), in order. */
  requests(): (Message & { id: RequestId; method: string })[] {
    return this.seen.map((s) => s.received.message).filter((m): m is Message & { id: RequestId; method: string } => isRequest(m));
  }
}

/** Waits for `promise` at most `ms` (not scaled); the timer never outlives the wait. */
async function waitAtMost(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([promise, new Promise((resolve) => (timer = setTimeout(resolve, Math.max(0, ms))))]);
  } finally {
    clearTimeout(timer);
  }
}

// ---- how cases open ------------------------------------------------------------------------------------

/** A session whose initialize was answered, and the client's first tools/call, not answered yet. */
export interface CallInFlight {
  server: ScriptedServer;
  call: Message & { id: RequestId };
}

/**
 * Opens the session (initialize answered as `answer` says) and serves the client until its
 * tools/call, returned unanswered: the start of every case that works while a call is in flight.
 * No call is a precondition failure.
 */
export async function callInFlight(ctx: CaseContext, answer: InitializeAnswer = {}): Promise<CallInFlight> {
  const server = new ScriptedServer(ctx);
  await server.open(answer);
  const call = await server.awaitCall();
  if (!call) throw server.precondition('the client made no tools/call');
  return { server, call };
}

/**
 * Sends `method` to the client while its tools/call is in flight (over Streamable HTTP the request
 * then rides the call's event stream), hands the answer to `judge` (no answer within the step wait
 * is already a failed check of `requirement`), then answers the call and serves the client until it
 * exits.
 */
export async function askDuringCall(
  ctx: CaseContext,
  requirement: string,
  method: string,
  params: Message | undefined,
  judge: (answer: Message) => void,
): Promise<void> {
  const { server, call } = await callInFlight(ctx);
  const answer = await server.request(requirement, method, params);
  if (answer) judge(answer);
  await server.finishCall(call);
}

/** A session served from initialize to the client's exit. */
export interface ServedSession {
  server: ScriptedServer;
  /** The client's exit status (undefined when it was still running). */
  exit: ClientExit | undefined;
}

/**
 * Opens the session (initialize answered as `answer` says) and serves the client's whole scenario
 * until it exits (tools/call as `serve` says): the start of every case that judges the session
 * afterwards, or does its work while serving a call.
 */
export async function servedSession(ctx: CaseContext, answer: InitializeAnswer = {}, serve: ServeOptions = {}): Promise<ServedSession> {
  const server = new ScriptedServer(ctx, serve);
  await server.open(answer);
  const exit = await server.untilExit();
  return { server, exit };
}

/**
 * servedSession for a case whose work happens while it serves the client's tools/call (`onCall`,
 * which returns true once it answered the call itself): no tools/call at all is the case's failed
 * precondition, saying what the harness saw instead.
 */
export async function servedCall(ctx: CaseContext, onCall: NonNullable<ServeOptions['onCall']>, answer: InitializeAnswer = {}): Promise<ServedSession> {
  let called = false;
  const session = await servedSession(ctx, answer, {
    onCall: (request, server) => {
      called = true;
      return onCall(request, server);
    },
  });
  if (!called) throw session.server.precondition('the client made no tools/call');
  return session;
}

/** "ended with exit status 1" / "ended killed by SIGTERM" / "was still running at the deadline", after "the client". */
export function ending(exit: ClientExit | undefined): string {
  return exit === undefined ? 'was still running at the deadline' : `ended with ${exitText(exit)}`;
}

/** A readable exit status for check details. */
export function exitText(exit: ClientExit | undefined): string {
  if (exit === undefined) return 'still running';
  return exit.code !== null ? `exit status ${exit.code}` : `killed by ${exit.signal}`;
}

/** The last lines of the client's stderr, for check details. */
export function stderrTail(ctx: CaseContext, lines = 5): string[] {
  return [...(ctx.client?.stderrLines() ?? [])].slice(-lines);
}

// ---- the whole session, from the transcript -------------------------------------------------------------

/** One message the client sent, as the transcript recorded it (also the ones the harness refused). */
export interface ClientMessage {
  seq: number;
  message: Message;
  /** WebTransport: the encoding the frame arrived in. */
  encoding?: 'json' | 'cbor';
  /** WebTransport: bytes on the wire including the 4-byte length prefix. */
  byteLength: number;
  /** Streamable HTTP: the request headers of the POST that carried it. */
  headers?: Record<string, string>;
}

/** Every JSON-RPC message the client sent (control stream, POST bodies, or lines), in order. */
export function clientMessages(ctx: CaseContext): ClientMessage[] {
  const out: ClientMessage[] = [];
  for (const entry of ctx.connection.transcript.entries()) {
    if (entry.direction !== 'received' || entry.decoded === undefined) continue;
    if (entry.channel.kind !== 'control' && entry.channel.kind !== 'http' && entry.channel.kind !== 'stdio') continue;
    const items = Array.isArray(entry.decoded) ? entry.decoded : [entry.decoded];
    for (const item of items) {
      if (!isRecord(item)) continue;
      const encoding = entry.note === 'json' || entry.note === 'cbor' ? entry.note : undefined;
      const headers = entry.channel.kind === 'http' ? entry.channel.headers : undefined;
      out.push({ seq: entry.seq, message: item, byteLength: entry.byteLength, ...(encoding ? { encoding } : {}), ...(headers ? { headers } : {}) });
    }
  }
  return out;
}

/** Transcript position of the client's initialize request (undefined when none came). */
export function initializeSeq(ctx: CaseContext): number | undefined {
  return clientMessages(ctx).find((m) => isRequest(m.message, 'initialize'))?.seq;
}

/** Transcript position of the first message the harness sent that matches `predicate` (Infinity when none). */
export function sentSeq(ctx: CaseContext, predicate: (message: unknown) => boolean): number {
  for (const entry of ctx.connection.transcript.entries()) {
    if (entry.direction === 'sent' && entry.decoded !== undefined && predicate(entry.decoded)) return entry.seq;
  }
  return Infinity;
}

/** Codes of the binding faults the harness's session recorded against the client (WebTransport). */
export function faultCodes(ctx: CaseContext): string[] {
  return ctx.connection.faults().map((f) => f.code);
}

/** Codes of what the session refused because it could not read it as a message in the encoding in force. */
const UNREADABLE = new Set(['FRAME_TRUNCATED_LENGTH', 'FRAME_TRUNCATED_BODY', 'FRAME_TOO_LARGE', 'FRAME_EMPTY', 'INVALID_UTF8', 'INVALID_JSON', 'INVALID_CBOR', 'CBOR_TRAILING_BYTES', 'ENCODING_MISMATCH']);

/** Frames the client sent that the harness's session could not read (and answered with an error), in order. */
export function unreadable(ctx: CaseContext): ConnectionFault[] {
  return ctx.connection.faults().filter((fault) => UNREADABLE.has(fault.code));
}
