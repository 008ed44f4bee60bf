// One MCP Flow session from the client's side (seed 000): interaction.start, then every prompt the
// server puts (the initialPrompt, each interaction.prompt, each interaction.continue nextPrompt)
// answered through an Answerer with interaction.respond, a rejected value asked again, until
// interaction.complete; a file the completion names on an execution stream must have arrived.
import { ConnectionClosedError } from '../../transport/errors.js';
import { CANCEL, type Answerer, type AskState } from './answerer.js';
import type { ClientContext } from './context.js';
import { MOCK_CLIENT_FAULT as F } from './faults.js';
import { checkLength, type StreamOutcome } from './streams.js';
import { record, type Id, type InteractionOutcome, type Message } from './types.js';

/** What the server asked of one interactive session. */
export type SessionEvent =
  | { kind: 'prompt'; prompt: Message; progress?: Message }
  | { kind: 'complete'; params: Message; finalResult: unknown }
  | { kind: 'closed'; error: Error };

/** The queue of one session's events, taken in order by the loop that answers them. */
export class SessionEvents {
  readonly #events: SessionEvent[] = [];
  #waiter: (() => void) | undefined;

  push(event: SessionEvent): void {
    this.#events.push(event);
    this.#waiter?.();
  }

  /** The next event, or undefined after `timeoutMs`. */
  async next(timeoutMs: number, signal?: AbortSignal): Promise<SessionEvent | undefined> {
    await this.wait(timeoutMs, signal);
    return this.#events.shift();
  }

  /** Whether an event is queued within `timeoutMs` (it stays queued). */
  async wait(timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    if (this.#events.length === 0 && !signal?.aborted) {
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', done);
          this.#waiter = undefined;
          resolve();
        };
        const timer = setTimeout(done, timeoutMs);
        signal?.addEventListener('abort', done, { once: true });
        this.#waiter = done;
      });
    }
    return this.#events.length > 0;
  }
}

/**
 * The sessions this client started, by session id. A server request naming a session not yet
 * known while an interaction.start is in flight is held: it may overtake the start result that
 * names its session, and is served again (`replay`) once every start settled.
 */
export class Sessions {
  readonly #events = new Map<string, SessionEvents>();
  #held: Message[] = [];
  #startsInFlight = 0;
  readonly #replay: (message: Message) => void;

  constructor(replay: (message: Message) => void) {
    this.#replay = replay;
  }

  get(sessionId: unknown): SessionEvents | undefined {
    return typeof sessionId === 'string' ? this.#events.get(sessionId) : undefined;
  }

  /** Holds `message` when a start is in flight (true), else leaves it to the caller (false). */
  hold(message: Message): boolean {
    if (this.#startsInFlight === 0) return false;
    this.#held.push(message);
    return true;
  }

  startBegun(): void {
    this.#startsInFlight++;
  }

  /** A start settled: with none left in flight the held requests are served again. */
  startSettled(): void {
    this.#startsInFlight--;
    if (this.#startsInFlight > 0) return;
    const held = this.#held;
    this.#held = [];
    for (const message of held) this.#replay(message);
  }

  open(sessionId: string, events: SessionEvents): void {
    this.#events.set(sessionId, events);
  }

  close(sessionId: string): void {
    this.#events.delete(sessionId);
  }
}

/**
 * Runs one MCP Flow session: interaction.start, then each prompt (the initialPrompt, each
 * interaction.prompt, each interaction.continue nextPrompt) answered through `answerer` with
 * interaction.respond; a rejected value is asked again (attempt + 1, with the server's reason).
 * Aborting `signal`, or the answerer returning CANCEL, sends interaction.cancel.
 */
export async function interact(
  ctx: ClientContext,
  sessions: Sessions,
  toolName: string,
  initialParams: Message | undefined,
  answerer: Answerer,
  options: { signal?: AbortSignal } = {},
): Promise<InteractionOutcome> {
  const outcome: InteractionOutcome = { status: 'failed', answers: 0, rejections: 0, streams: [], failures: [] };
  const signal = options.signal;
  const events = new SessionEvents();
  let start: Message;
  let startId: Id = -1;
  sessions.startBegun();
  try {
    // FAULT start-without-tool-name: the tool is named in `tool`, not `toolName`.
    const named = ctx.faults.has(F.startWithoutToolName) ? { tool: toolName } : { toolName };
    start = await ctx.request('interaction.start', { ...named, ...(initialParams !== undefined ? { initialParams } : {}) }, {
      ...(signal ? { signal } : {}),
      beforeSend: (id) => void (startId = id),
    });
  } catch (error) {
    sessions.startSettled();
    if (signal?.aborted) {
      outcome.status = 'cancelled';
      return outcome;
    }
    throw error;
  }
  const started = record(start['result']);
  const sessionId = started?.['sessionId'];
  if (!started || typeof sessionId !== 'string') {
    sessions.startSettled();
    const error = record(start['error']);
    outcome.failures.push(error ? `interaction.start failed with error ${String(error['code'] ?? '?')}: ${String(error['message'] ?? '')}` : 'the interaction.start result has no string sessionId');
    return outcome;
  }
  outcome.sessionId = sessionId;
  sessions.open(sessionId, events);
  sessions.startSettled();
  void ctx.connection.closed.then(() => events.push({ kind: 'closed', error: new ConnectionClosedError('the connection closed during the interaction') }));
  // FAULT server-request-sent: the client sends interaction.prompt, which only a server sends (FLOW-CAP-8).
  if (ctx.faults.has(F.serverRequestSent)) {
    ctx.background(ctx.request('interaction.prompt', { sessionId, prompt: { type: 'text', message: 'Sent by the client (fault)' } }));
  }
  const initialPrompt = record(started['initialPrompt']);
  if (initialPrompt) events.push({ kind: 'prompt', prompt: initialPrompt, ...(record(started['progress']) ? { progress: record(started['progress'])! } : {}) });

  let current: Message | undefined;
  let state: AskState = { sessionId, attempt: 1 };
  const respondIds: number[] = [];
  try {
    for (;;) {
      if (signal?.aborted) return await cancelInteraction(ctx, outcome, sessionId, 'cancelled by the user');
      const event = await events.next(ctx.timeoutMs, signal);
      if (signal?.aborted) return await cancelInteraction(ctx, outcome, sessionId, 'cancelled by the user');
      if (event === undefined) {
        outcome.failures.push(`the server sent no prompt or completion for session ${sessionId} within ${ctx.timeoutMs} ms`);
        return outcome;
      }
      if (event.kind === 'closed') {
        outcome.failures.push(event.error.message);
        return outcome;
      }
      if (event.kind === 'complete') {
        outcome.status = 'completed';
        const result = record(event.params['result']);
        if (result) outcome.result = result;
        if (typeof event.params['summary'] === 'string') outcome.summary = event.params['summary'];
        outcome.finalResult = event.finalResult;
        if (result?.['success'] === false) outcome.failures.push('interaction.complete reports success: false');
        outcome.streams = await sessionStreams(ctx, result, respondIds, outcome.failures);
        if (outcome.failures.length > 0) outcome.status = 'failed';
        return outcome;
      }
      const progress = event.progress;
      if (progress && typeof progress['current'] === 'number') {
        answerer.progress?.({
          requestId: startId,
          progress: progress['current'],
          ...(typeof progress['total'] === 'number' ? { total: progress['total'] } : {}),
          ...(typeof progress['message'] === 'string' ? { message: progress['message'] } : {}),
        });
      }
      current = event.prompt;
      let value: unknown;
      try {
        value = await answerer.ask(event.prompt, state);
      } catch (error) {
        if (signal?.aborted) throw error;
        outcome.failures.push(`no answer for the prompt: ${(error as Error).message}`);
        return outcome;
      }
      if (value === CANCEL) return await cancelInteraction(ctx, outcome, sessionId, 'cancelled by the user');
      outcome.answers++;
      // FAULT respond-without-value.
      const response = ctx.faults.has(F.respondWithoutValue) ? { answer: value } : { value };
      const answered = await ctx.request('interaction.respond', { sessionId, response }, {
        beforeSend: (id) => {
          if (typeof id === 'number') respondIds.push(id);
        },
      });
      // FAULT respond-twice: the same answer goes out once more, with no prompt waiting for it.
      if (ctx.faults.has(F.respondTwice)) ctx.background(ctx.request('interaction.respond', { sessionId, response }));
      const result = record(answered['result']);
      if (!result) {
        const error = record(answered['error']);
        outcome.failures.push(`interaction.respond failed with error ${String(error?.['code'] ?? '?')}: ${String(error?.['message'] ?? '')}`);
        return outcome;
      }
      if (result['accepted'] === false) {
        outcome.rejections++;
        const validation = record(result['validation']) ?? {};
        state = {
          sessionId,
          attempt: state.attempt + 1,
          rejected: {
            ...(typeof validation['error'] === 'string' ? { message: validation['error'] } : {}),
            ...(validation['suggestion'] !== undefined ? { suggestion: validation['suggestion'] } : {}),
            ...(validation['errors'] !== undefined ? { errors: validation['errors'] } : {}),
          },
        };
        // FAULT no-retry-after-rejection.
        if (ctx.faults.has(F.noRetryAfterRejection)) {
          outcome.failures.push(`the value was rejected${state.rejected?.message ? `: ${state.rejected.message}` : ''}; not answering again (fault)`);
          return outcome;
        }
        // Wait (bounded) for the re-prompt; without one the kept prompt is answered again (FLOW-RESPOND-4 reading 2).
        if (!(await events.wait(ctx.options.repromptGraceMs ?? 2000, signal))) events.push({ kind: 'prompt', prompt: current });
        continue;
      }
      state = { sessionId, attempt: 1 };
    }
  } catch (error) {
    if (signal?.aborted) return cancelInteraction(ctx, outcome, sessionId, 'cancelled by the user');
    throw error;
  } finally {
    sessions.close(sessionId);
  }
}

async function cancelInteraction(ctx: ClientContext, outcome: InteractionOutcome, sessionId: string, reason: string): Promise<InteractionOutcome> {
  outcome.status = 'cancelled';
  try {
    const answer = await ctx.request('interaction.cancel', { sessionId, reason });
    if (!record(answer['result'])) outcome.failures.push(`interaction.cancel failed: ${JSON.stringify(answer['error'])}`);
  } catch (error) {
    outcome.failures.push(`interaction.cancel could not be sent: ${(error as Error).message}`);
  }
  return outcome;
}

/** A file announced by interaction.complete (result.data.file.stream) must have arrived, as long as its size says. */
async function sessionStreams(ctx: ClientContext, result: Message | undefined, respondIds: number[], failures: string[]): Promise<StreamOutcome[]> {
  const file = record(record(result?.['data'])?.['file']);
  const stream = record(file?.['stream']);
  if (file && typeof file['content'] === 'string' && typeof file['size'] === 'number') {
    // An inline file: its size must match its content (UTF-8 text).
    const bytes = Buffer.byteLength(file['content'], 'utf8');
    if (bytes !== file['size']) failures.push(`interaction.complete carries a file of ${bytes} bytes inline, but its size says ${file['size']}`);
  }
  if (!ctx.streams || !stream) return [];
  const requestId = stream['requestId'];
  const streamTag = stream['streamTag'];
  if (typeof requestId !== 'number' || typeof streamTag !== 'number' || !respondIds.includes(requestId)) {
    failures.push(`interaction.complete names stream ${JSON.stringify(stream)}, which is not a stream of this session's interaction.respond requests`);
    return [];
  }
  const outcome = await ctx.streams.take(requestId, streamTag, ctx.options.streamGraceMs ?? 1000);
  if (!outcome) {
    if (!ctx.faults.has(F.danglingStreamRefIgnored)) failures.push(`interaction.complete names stream tag ${streamTag} of request ${requestId}, but no such stream came`);
    return [];
  }
  if (typeof file?.['mimeType'] === 'string') outcome.mimeType = file['mimeType'];
  if (typeof file?.['size'] === 'number') checkLength(outcome, file['size']);
  if (!outcome.complete || outcome.failure) failures.push(outcome.failure ?? `stream tag ${streamTag} did not complete`);
  return [outcome];
}
