// The requests a session of the mock server is working on: each one's abort signal, progress
// token and answer. Cancellation (notifications/cancelled: stop, answer nothing, CORE-CANCEL-2;
// $/cancel: stop and answer -32000 at once, WT-CANCEL-1/-2; unknown ids ignored, CORE-CANCEL-4,
// WT-CANCEL-4) and progress (increasing, for the request's token, never after the answer,
// CORE-PROG-2..4; a 0x01 datagram on WebTransport when negotiated) act on these entries.
import { BINDING_ERROR, JSONRPC_ERROR } from '../../../protocol/error-codes.js';
import { CORE_METHOD, PROTOCOL_VERSIONS } from '../../../protocol/methods.js';
import type { Connection } from '../../../transport/connection.js';
import type { FaultHooks } from '../../faults.js';
import { RpcError, type ActiveFaults } from '../extension.js';
import { CORE_FAULT as F } from '../faults.js';
import { PROGRESS_PARAMS_REWRITES } from './fault-hooks.js';
import { errorObject, idKey, isHeaderId, isRecord, type JsonRpcErrorObject, type RequestId } from './jsonrpc.js';
import { describe, type Outbox, type Sink } from './outbox.js';
import type { SessionState } from './state.js';

/** FAULT progress-after-response over Streamable HTTP: how long after the response the late progress goes. */
const LATE_PROGRESS_DELAY_MS = 50;

/** What the session does once notifications/cancelled named a request it works on. */
type CancelledHandling = 'stop-silently' | 'keep-working' | 'stop-and-answer-cancelled';

/** Faults that change how notifications/cancelled is handled (none: stop and answer nothing, CORE-CANCEL-2). */
const CANCELLED_HANDLING: FaultHooks<CancelledHandling> = {
  [F.ignoreCancel]: 'keep-working',
  [F.respondAfterCancelled]: 'stop-and-answer-cancelled',
  [F.deafToCancel]: 'keep-working',
};

/** Faults under which $/cancel changes nothing: the request runs on to its normal answer. */
const DEAF_TO_DOLLAR_CANCEL: FaultHooks<true> = {
  [F.dollarCancelAnsweredWithResult]: true,
  [F.deafToCancel]: true,
};

export interface InFlight {
  id: RequestId;
  method: string;
  sink: Sink;
  controller: AbortController;
  answered: boolean;
  cancelled?: CancelledHandling;
  progressToken?: string | number;
  lastProgress?: number;
  progressCount: number;
}

export type Outcome = { result: unknown } | { error: JsonRpcErrorObject };

export class InFlightRequests {
  readonly #entries = new Map<string, InFlight>();
  readonly #connection: Connection;
  readonly #outbox: Outbox;
  readonly #faults: ActiveFaults;
  readonly #state: SessionState;
  readonly #progressDatagrams: boolean;

  constructor(options: { connection: Connection; outbox: Outbox; faults: ActiveFaults; state: SessionState; progressDatagrams: boolean }) {
    this.#connection = options.connection;
    this.#outbox = options.outbox;
    this.#faults = options.faults;
    this.#state = options.state;
    this.#progressDatagrams = options.progressDatagrams;
  }

  /** Starts tracking a request; its progress token is the one its `_meta` carries, when usable. */
  open(id: RequestId, method: string, params: unknown, sink: Sink): InFlight {
    const meta = isRecord(params) && isRecord(params['_meta']) ? params['_meta'] : undefined;
    const token = meta?.['progressToken'];
    const entry: InFlight = { id, method, sink, controller: new AbortController(), answered: false, progressCount: 0 };
    if (typeof token === 'string' || (typeof token === 'number' && Number.isFinite(token))) entry.progressToken = token;
    this.#entries.set(idKey(id), entry);
    return entry;
  }

  /** Stops tracking a request whose handler finished. */
  close(entry: InFlight): void {
    this.#entries.delete(idKey(entry.id));
  }

  /** Sends the one answer a request gets, unless cancellation took it away (CORE-CANCEL-2, WT-CANCEL-2). */
  async answer(entry: InFlight, outcome: Outcome): Promise<void> {
    if (entry.answered || this.#connection.isClosed) return;
    if (entry.cancelled === 'stop-silently') return;
    if (entry.cancelled === 'stop-and-answer-cancelled') outcome = { error: errorObject(BINDING_ERROR.RequestCancelled, 'Request cancelled') };
    entry.answered = true;
    if ('result' in outcome) await this.#outbox.result(entry.sink, entry.id, outcome.result);
    else await this.#outbox.error(entry.sink, entry.id, outcome.error);
    if (this.#faults.has(F.progressAfterResponse) && entry.progressToken !== undefined && entry.progressCount > 0) {
      // Over Streamable HTTP the response ended its POST's stream and the late progress goes on the
      // GET stream, another socket the client reads apart: sent at once it may be read first, so it
      // follows a moment later (as a progress timer firing after the work ended would).
      if (this.#connection.kind === 'http') await new Promise((resolve) => setTimeout(resolve, LATE_PROGRESS_DELAY_MS));
      if (!this.#connection.isClosed) await this.#sendProgress(entry, (entry.lastProgress ?? 0) + 1);
    }
  }

  #find(requestId: unknown): InFlight | undefined {
    if (typeof requestId !== 'string' && typeof requestId !== 'number') return undefined;
    const entry = this.#entries.get(idKey(requestId));
    return entry && !entry.answered && entry.method !== CORE_METHOD.initialize ? entry : undefined;
  }

  /** notifications/cancelled: stop the work, send no answer (CORE-CANCEL-2); unknown ids are ignored (CORE-CANCEL-4). */
  async onCancelled(requestId: unknown, reason: unknown): Promise<void> {
    // FAULT wt-cancelled-answered (WT-CANCEL-5): over WebTransport the notification is handled as $/cancel.
    if (this.#connection.kind === 'webtransport' && this.#faults.has(F.wtCancelledAnswered)) return this.onDollarCancel(requestId, reason);
    const entry = this.#find(requestId);
    if (!entry) {
      if (this.#faults.has(F.answerCancelledNotification) && (typeof requestId === 'string' || typeof requestId === 'number')) {
        await this.#outbox.error(this.#outbox.direct, requestId, errorObject(JSONRPC_ERROR.InvalidParams, `no request ${JSON.stringify(requestId)} is in flight`));
      }
      return;
    }
    const handling = this.#faults.hooks(CANCELLED_HANDLING)[0] ?? 'stop-silently';
    entry.cancelled = handling;
    if (handling !== 'keep-working') entry.controller.abort(new RpcError(BINDING_ERROR.RequestCancelled, cancelText(reason)));
  }

  /** $/cancel: stop the work and answer the request with -32000 "Cancelled" at once (WT-CANCEL-1, -2). */
  async onDollarCancel(requestId: unknown, reason: unknown): Promise<void> {
    const entry = this.#find(requestId);
    if (!entry) {
      if (this.#faults.has(F.answerUnknownDollarCancel) && (typeof requestId === 'string' || typeof requestId === 'number')) {
        await this.#outbox.error(this.#outbox.direct, requestId, errorObject(BINDING_ERROR.Cancelled, `Cancelled: no request ${JSON.stringify(requestId)} is in flight`));
      }
      return;
    }
    if (this.#faults.hooks(DEAF_TO_DOLLAR_CANCEL).length > 0) return;
    entry.controller.abort(new RpcError(BINDING_ERROR.Cancelled, cancelText(reason)));
    entry.answered = true;
    await this.#outbox.error(entry.sink, entry.id, errorObject(BINDING_ERROR.Cancelled, 'Cancelled', reason === undefined ? undefined : { reason }));
  }

  /** notifications/progress for the request's token: increasing, never after the answer (CORE-PROG-2..4). */
  async reportProgress(entry: InFlight, progress: number, total?: number, message?: string): Promise<void> {
    if (entry.progressToken === undefined || entry.answered || entry.controller.signal.aborted) return;
    if (entry.lastProgress !== undefined && progress <= entry.lastProgress) return;
    let sent = progress;
    if (this.#faults.has(F.progressNotIncreasing) && entry.progressCount % 2 === 1 && entry.lastProgress !== undefined) sent = entry.lastProgress;
    await this.#sendProgress(entry, sent, total, message);
  }

  async #sendProgress(entry: InFlight, progress: number, total?: number, message?: string): Promise<void> {
    const built: Record<string, unknown> = { progressToken: entry.progressToken!, progress };
    if (total !== undefined) built['total'] = total;
    if (message !== undefined && PROTOCOL_VERSIONS.indexOf(this.#state.protocolVersion) >= PROTOCOL_VERSIONS.indexOf('2025-03-26')) built['message'] = message;
    const params = this.#faults.rewrite(PROGRESS_PARAMS_REWRITES, built);
    entry.lastProgress = progress;
    entry.progressCount++;
    const wt = this.#connection.webtransport;
    try {
      if (wt && this.#progressDatagrams && wt.serverCapabilities?.datagramsSupported === true && isHeaderId(entry.id)) {
        // Imported here, over WebTransport only (where it is loaded already): the stdio mock
        // server, started once per case, speaks JSON alone and never loads cbor-x.
        const { codecFor } = await import('../../../wire/codec.js');
        await wt.sendDatagram({ channel: 0x01, requestId: entry.id, payload: codecFor(wt.encoding).encode(params) });
        return;
      }
      await this.#outbox.notify(CORE_METHOD.progress, params, entry.id);
    } catch (error) {
      this.#outbox.note(`progress not sent: ${describe(error)}`);
    }
  }
}

function cancelText(reason: unknown): string {
  return typeof reason === 'string' && reason !== '' ? `Cancelled: ${reason}` : 'Cancelled';
}
