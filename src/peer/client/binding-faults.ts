// What the client does about the binding faults its WebTransport session records (a frame that did
// not decode, a stream that ended inside its header or names no request of the client's, a
// datagram dropped): the session answers them itself (answerErrors), unless a fault changes the
// code of an answer; then the session only records them and the client answers here, with the
// fault's code. Other faults react here to a dropped datagram (report it with an id, close the
// session, give up the calls in flight). Faults the session's hooks can carry are session-hooks.ts.
import type { ConnectionFault } from '../../transport/connection.js';
import type { ClientContext } from './context.js';
import { MOCK_CLIENT_FAULT as F, type ClientFaults, type MockClientFaultName } from './faults.js';
import type { Message } from './types.js';

/**
 * Faults that change the code of the client's answer to a binding fault: with them on, the client
 * answers, not its session (the session's hooks can withhold an answer or change its id, not its code).
 */
const ANSWER_FAULTS = [F.truncatedHeaderWrongCode, F.injectionReportedAsInvalidReference] as const;

/** Whether the client answers binding faults itself (a fault changes the answers) rather than its session. */
export function answersBindingFaults(faults: ClientFaults): boolean {
  return ANSWER_FAULTS.some((name) => faults.has(name));
}

/** Codes after which the control stream is out of sync: the session ends (after its answer went out). */
const LOSES_SYNC = new Set(['FRAME_TOO_LARGE']);
/** How long a session out of sync stays open for its error answer to get through. */
const LOST_SYNC_CLOSE_DELAY_MS = 1000;
/** Datagrams the session drops: malformed ones, and those naming no request in flight. */
const DROPPED_DATAGRAM = new Set(['DATAGRAM_TOO_SHORT', 'DATAGRAM_RESERVED_CHANNEL', 'DATAGRAM_RESERVED_FLAGS', 'DATAGRAM_UNKNOWN_CHANNEL', 'DATAGRAM_NOT_IN_FLIGHT']);
/** The malformed datagram each "reported with an id" fault answers. */
const DATAGRAM_REPORT_FAULTS: Readonly<Record<string, MockClientFaultName>> = {
  DATAGRAM_TOO_SHORT: F.shortDatagramReportedWithId,
  DATAGRAM_RESERVED_CHANNEL: F.reservedChannelDatagramReportedWithId,
  DATAGRAM_RESERVED_FLAGS: F.flaggedDatagramReportedWithId,
};

export class BindingFaultWatch {
  readonly #ctx: ClientContext;
  readonly #answering: boolean;
  #seen = 0;
  #checkQueued = false;

  constructor(ctx: ClientContext) {
    this.#ctx = ctx;
    this.#answering = answersBindingFaults(ctx.faults);
  }

  /** Something happened on the session: looks at the faults it recorded since (once the current task is done). */
  poke(): void {
    if (this.#checkQueued) return;
    this.#checkQueued = true;
    queueMicrotask(() => {
      this.#checkQueued = false;
      const faults = this.#ctx.connection.faults();
      while (this.#seen < faults.length) this.#handle(faults[this.#seen++]!);
    });
  }

  #handle(fault: ConnectionFault): void {
    const ctx = this.#ctx;
    if (fault.channel.kind === 'datagram') {
      this.#onDroppedDatagram(fault);
      return;
    }
    if (!this.#answering || fault.jsonRpcCode === undefined || fault.code === 'INVALID_STREAM_REFERENCE') return;
    ctx.background(ctx.send(this.#answer(fault)));
    if (LOSES_SYNC.has(fault.code) && fault.channel.kind === 'control') {
      setTimeout(() => ctx.background(ctx.connection.close(`${fault.code}: ${fault.message}`)), LOST_SYNC_CLOSE_DELAY_MS).unref();
    }
  }

  /** The error the client sends about `fault`. */
  #answer(fault: ConnectionFault): Message {
    const faults = this.#ctx.faults;
    let code = fault.jsonRpcCode!;
    // FAULT truncated-header-wrong-code: -32602 Invalid params instead of -32600 Invalid Request.
    if (fault.code === 'EXEC_HEADER_TRUNCATED' && faults.has(F.truncatedHeaderWrongCode)) code = -32602;
    // FAULT injection-reported-as-invalid-reference: -32001 (another binding code's meaning) instead of -32002.
    if (fault.code === 'STREAM_INJECTION' && faults.has(F.injectionReportedAsInvalidReference)) code = -32001;
    const header = fault.channel.kind === 'stream' ? fault.channel.header : undefined;
    const data = header ? { requestId: header.requestId, streamTag: header.streamTag } : undefined;
    return { jsonrpc: '2.0', id: null, error: { code, message: fault.message, ...(data ? { data } : {}) } };
  }

  #onDroppedDatagram(fault: ConnectionFault): void {
    const ctx = this.#ctx;
    if (!DROPPED_DATAGRAM.has(fault.code)) return;
    // FAULT dropped-datagram-closes-session.
    if (ctx.faults.has(F.droppedDatagramClosesSession)) {
      ctx.background(ctx.connection.close(`a dropped datagram (${fault.code}) ends the session (fault)`));
      return;
    }
    // FAULT unknown-datagram-fails-calls: every call in flight is given up.
    if (fault.code === 'DATAGRAM_NOT_IN_FLIGHT' && ctx.faults.has(F.unknownDatagramFailsCalls)) {
      ctx.abandonPending(new Error(`a datagram named a request not in flight, so every call in flight was given up (fault): ${fault.message}`));
      return;
    }
    // FAULTs short-/reserved-channel-/flagged-datagram-reported-with-id: reported with id 0, not null.
    const reportFault = DATAGRAM_REPORT_FAULTS[fault.code];
    if (reportFault !== undefined && ctx.faults.has(reportFault)) {
      ctx.background(ctx.send({ jsonrpc: '2.0', id: 0, error: { code: -32600, message: `Invalid Request: datagram dropped: ${fault.message}` } }));
    }
  }
}
