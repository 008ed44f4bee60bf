// What the server sends the client unasked, and how the client serves it: ping, interaction.prompt
// / continue / complete for its sessions, refusals of what it did not declare or what is meant for
// the server, roots / elicitation / sampling when declared; $/shutdown, $/streamError,
// notifications/progress and cancellations; progress datagrams. Faults (faults.ts) each change one
// of these answers.
import type { ClientContext } from './context.js';
import { MOCK_CLIENT_FAULT as F } from './faults.js';
import type { Sessions } from './interaction.js';
import { idKey, progressReport, record, type Id, type Message } from './types.js';

const METHOD_NOT_FOUND = -32601;
const INVALID_PARAMS = -32602;
const SESSION_NOT_FOUND = -32001;

export class ServerMessages {
  readonly #ctx: ClientContext;
  readonly #sessions: Sessions;
  /** Ids of the requests the server sent (what a cancellation may name). */
  readonly #received = new Set<string>();
  #shutdownReceived = false;

  constructor(ctx: ClientContext, sessions: Sessions) {
    this.#ctx = ctx;
    this.#sessions = sessions;
  }

  /** Whether the server sent `$/shutdown`. */
  get shutdownReceived(): boolean {
    return this.#shutdownReceived;
  }

  /** Serves one server-to-client request. */
  async serve(message: Message): Promise<void> {
    const ctx = this.#ctx;
    const id = message['id'] as Id;
    const method = message['method'] as string;
    const params = record(message['params']) ?? {};
    this.#received.add(idKey(id));
    // FAULT control-blocked-by-streams: nothing is served while an execution stream is being read.
    if (ctx.faults.has(F.controlBlockedByStreams)) await ctx.streams?.whenIdle();
    const token = record(params['_meta'])?.['progressToken'];
    const progress = (value: number) => this.#sendProgress(token, value);
    // FAULT progress-decreasing: progress for the request's token goes backwards before the answer.
    if (ctx.faults.has(F.progressDecreasing) && token !== undefined) {
      await progress(2);
      await progress(1);
    }
    const answer = async (result: unknown) => {
      await this.#answer({ jsonrpc: '2.0', id, result });
      // FAULT progress-after-response: progress for the request's token after its answer.
      if (ctx.faults.has(F.progressAfterResponse) && token !== undefined) await progress(1);
    };
    const refuse = (code: number, text: string, data?: unknown) => this.#answer({ jsonrpc: '2.0', id, error: { code, message: text, ...(data !== undefined ? { data } : {}) } });
    const declared = this.#declared();
    try {
      switch (method) {
        case 'ping':
          // FAULT ping-unanswered.
          if (ctx.faults.has(F.pingUnanswered)) return;
          // FAULT ping-result-not-object.
          await answer(ctx.faults.has(F.pingResultNotObject) ? [] : {});
          return;
        case 'interaction.prompt':
        case 'interaction.continue':
        case 'interaction.complete':
          await this.#interactionRequest(message, method, params, answer, refuse);
          return;
        case 'sampling/createMessage':
          // FAULT sampling-served-undeclared.
          if (declared['sampling'] !== undefined || ctx.faults.has(F.samplingServedUndeclared)) {
            const sample: Message = { role: 'assistant', content: { type: 'text', text: 'mock client sample' }, model: 'mock-client', stopReason: 'endTurn' };
            // FAULT sampling-without-model.
            if (ctx.faults.has(F.samplingWithoutModel)) delete sample['model'];
            await answer(sample);
          } else await refuse(METHOD_NOT_FOUND, 'Method not found: this client did not declare sampling');
          return;
        case 'roots/list':
          // FAULT roots-not-file-uri.
          if (declared['roots'] !== undefined) await answer({ roots: ctx.faults.has(F.rootsNotFileUri) ? [{ uri: 'https://example.com/project', name: 'project' }] : [] });
          else await refuse(METHOD_NOT_FOUND, 'Method not found: this client did not declare roots');
          return;
        case 'elicitation/create':
          // FAULT elicitation-without-action.
          if (declared['elicitation'] !== undefined) await answer(ctx.faults.has(F.elicitationWithoutAction) ? { content: {} } : { action: 'decline' });
          else await refuse(METHOD_NOT_FOUND, 'Method not found: this client did not declare elicitation');
          return;
        default:
          // interaction.start/respond/cancel/getState and capabilities are client-to-server (FLOW-CAP-9).
          // FAULT interaction-request-served.
          if (method.startsWith('interaction.') && ctx.faults.has(F.interactionRequestServed)) await answer({});
          // FAULT unknown-method-invalid-params.
          else if (ctx.faults.has(F.unknownMethodInvalidParams)) await refuse(INVALID_PARAMS, `Invalid params for ${method}`);
          else await refuse(METHOD_NOT_FOUND, `Method not found: ${method}`);
      }
    } catch (error) {
      ctx.note(`could not answer ${method}: ${(error as Error).message}`);
    }
  }

  /** interaction.prompt / .continue / .complete: answered for a session of this client, refused (-32001) for any other. */
  async #interactionRequest(
    message: Message,
    method: string,
    params: Message,
    answer: (result: unknown) => Promise<void>,
    refuse: (code: number, text: string, data?: unknown) => Promise<void>,
  ): Promise<void> {
    const ctx = this.#ctx;
    const sessionId = params['sessionId'];
    const events = this.#sessions.get(sessionId);
    // The prompt may overtake the interaction.start result that names its session.
    if (!events && this.#sessions.hold(message)) return;
    if (!events) {
      // FAULT unknown-session-prompt-acknowledged.
      if (ctx.faults.has(F.unknownSessionPromptAcknowledged) && method !== 'interaction.complete') await answer({ acknowledged: true });
      else await refuse(SESSION_NOT_FOUND, `Session not found: ${String(sessionId)}`, { sessionId });
      return;
    }
    if (method === 'interaction.complete') {
      const result = record(params['result']);
      // FAULT final-result-not-data.
      const finalResult = ctx.faults.has(F.finalResultNotData) ? { summary: params['summary'] ?? null } : result?.['data'];
      // FAULT complete-without-success.
      await answer(ctx.faults.has(F.completeWithoutSuccess) ? { finalResult } : { success: true, finalResult });
      events.push({ kind: 'complete', params, finalResult });
      return;
    }
    // FAULT continue-unacknowledged: the request goes unanswered.
    if (!(method === 'interaction.continue' && ctx.faults.has(F.continueUnacknowledged))) await answer({ acknowledged: true });
    const prompt = record(method === 'interaction.prompt' ? params['prompt'] : params['nextPrompt']);
    const progress = record(params['progress']);
    if (prompt) events.push({ kind: 'prompt', prompt, ...(progress ? { progress } : {}) });
    else if (typeof progress?.['message'] === 'string') ctx.options.onNotification?.({ jsonrpc: '2.0', method: 'interaction.continue', params });
  }

  /** Handles one notification from the server. */
  onNotification(method: string, message: Message): void {
    const ctx = this.#ctx;
    const params = record(message['params']) ?? {};
    if (method === '$/shutdown') this.#onShutdown();
    else if (method === '$/streamError') {
      const known = ctx.streams?.onStreamError(params) ?? false;
      if (!known) {
        ctx.note(`$/streamError for a request or stream this client does not know: ignored ${JSON.stringify(params)}`);
        // FAULT stream-error-answered.
        if (ctx.faults.has(F.streamErrorAnswered)) ctx.background(ctx.send({ jsonrpc: '2.0', id: null, error: { code: -32602, message: 'Unknown stream in $/streamError' } }));
      }
    } else if (method === 'notifications/progress') {
      const token = params['progressToken'];
      const handler = typeof token === 'string' || typeof token === 'number' ? ctx.progress.get(idKey(token)) : undefined;
      if (handler && typeof params['progress'] === 'number') handler(progressReport(token as Id, params));
    } else if (method === 'notifications/cancelled') {
      const requestId = params['requestId'];
      const known = (typeof requestId === 'string' || typeof requestId === 'number') && this.#received.has(idKey(requestId));
      // FAULT unknown-cancel-answered.
      if (!known && ctx.faults.has(F.unknownCancelAnswered)) {
        ctx.background(ctx.send({ jsonrpc: '2.0', id: null, error: { code: INVALID_PARAMS, message: `notifications/cancelled names request ${JSON.stringify(requestId)}, which this client never received` } }));
      }
    }
    // FAULT notification-answered.
    if (ctx.faults.has(F.notificationAnswered) && method !== '$/streamError') {
      ctx.background(ctx.send({ jsonrpc: '2.0', id: null, error: { code: METHOD_NOT_FOUND, message: `Notification ${method} answered (fault)` } }));
    }
    ctx.options.onNotification?.(message);
  }

  /** Routes progress datagrams (channel 0x01) to the request they name, for the life of the session. */
  async readDatagrams(): Promise<void> {
    const wt = this.#ctx.connection.webtransport!;
    for (;;) {
      let datagram;
      try {
        datagram = await wt.nextDatagram();
      } catch {
        return;
      }
      const decoded = record(datagram.decoded);
      if (datagram.channel !== 0x01 || !decoded || typeof decoded['progress'] !== 'number') continue;
      this.#ctx.progress.get(idKey(datagram.requestId))?.(progressReport(datagram.requestId, decoded));
    }
  }

  #onShutdown(): void {
    const ctx = this.#ctx;
    this.#shutdownReceived = true;
    if (!ctx.initialized) return;
    // FAULT requests-after-shutdown: a new request right after the server's $/shutdown.
    if (ctx.faults.has(F.requestsAfterShutdown)) ctx.background(ctx.send(ctx.newRequest('tools/list', {})));
    // FAULT stream-after-shutdown: an execution stream for a request still in flight.
    const wt = ctx.connection.webtransport;
    const requestId = ctx.inFlight().find((id): id is number => typeof id === 'number');
    if (wt && requestId !== undefined && ctx.faults.has(F.streamAfterShutdown)) {
      ctx.background(
        wt.openExecutionStream({ requestId, streamTag: 1 }).then(async (stream) => {
          await stream.write(new TextEncoder().encode('opened after $/shutdown (fault)'));
          await stream.close();
        }),
      );
    }
  }

  /** The client capabilities declared in initialize (faults may declare more than the options). */
  #declared(): Record<string, unknown> {
    return this.#ctx.declared;
  }

  /** Sends an answer; FAULTs change its id, its error code, or send it twice. */
  async #answer(message: Message): Promise<void> {
    const ctx = this.#ctx;
    let out = message;
    // FAULT response-id-as-string: the id goes back as a string ("5" for 5).
    if (ctx.faults.has(F.responseIdAsString) && typeof out['id'] === 'number') out = { ...out, id: String(out['id']) };
    const error = record(out['error']);
    // FAULT error-code-not-integer: the error code goes out as a string.
    if (error && ctx.faults.has(F.errorCodeNotInteger)) out = { ...out, error: { ...error, code: String(error['code']) } };
    await ctx.send(out);
    // FAULT request-answered-twice.
    if (ctx.faults.has(F.requestAnsweredTwice)) await ctx.send(out);
  }

  /** notifications/progress for a server-given token (nothing without one). */
  async #sendProgress(token: unknown, progress: number): Promise<void> {
    if (typeof token !== 'string' && typeof token !== 'number') return;
    await this.#ctx.send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress, total: 2 } });
  }
}
