// What the parts of one WebTransport session share: its role, limits and readings, the 001 §1 state
// machine, the encoding state, the requests in flight, what the peer broke, a change signal the
// parts wait on, and the hooks of the layer above. The session (session.ts) wires the parts
// (control-stream.ts, delivery.ts, execution-streams.ts, datagrams.ts) to one core.
import type { ConnectionFault, ServerTransportCapabilities } from '../connection.js';
import { ConnectionClosedError } from '../errors.js';
import type { Transcript, TranscriptChannel } from '../transcript.js';
import { EncodingState, type EncodingName } from '../../wire/index.js';
import type { WtRole, WtSessionHooks } from './hooks.js';
import { InFlightRequests } from './in-flight.js';
import type { WtSessionLimits } from './limits.js';
import type { WtBindingReadings } from './readings.js';
import { WtStateMachine } from './state-machine.js';

/** Which binding errors a client-role session answers on the control stream (WtSessionInit.answerErrors). */
export interface ClientErrorAnswers {
  /** Control frames (and stream headers) that do not decode: WT-FRAME-4/5. */
  parseErrors?: boolean;
  /** Execution streams naming no request in flight: WT-EXEC-9. */
  streamInjection?: boolean;
  /** `ref/stream` items naming no execution stream: WT-EXEC-3. */
  streamReferences?: boolean;
}

export const CONTROL: TranscriptChannel = { kind: 'control' };
/** How long a peer whose control stream lost frame sync (or was refused) may keep the session to read our error answer. */
export const LOST_SYNC_CLOSE_DELAY_MS = 1000;

export interface SessionCoreInit {
  role: WtRole;
  transcript: Transcript;
  limits: WtSessionLimits;
  readings: WtBindingReadings;
  raw: boolean;
  encodings: readonly EncodingName[];
  datagramsSupported: boolean;
  answers: Required<ClientErrorAnswers>;
}

/** The operations of the session the parts call back into. */
export interface SessionOperations {
  send(message: unknown): Promise<void>;
  close(reason: string): Promise<void>;
  /** Whether the control stream can be written to (the client opened it). */
  controlOpen(): boolean;
  /** Settles once everything written so far has gone out. */
  writesSettled(): Promise<void>;
}

export class SessionCore {
  readonly role: WtRole;
  readonly transcript: Transcript;
  readonly limits: WtSessionLimits;
  readonly readings: WtBindingReadings;
  readonly raw: boolean;
  readonly encodings: readonly EncodingName[];
  readonly datagramsSupported: boolean;
  readonly answers: Required<ClientErrorAnswers>;
  readonly machine: WtStateMachine;
  readonly encoding = new EncodingState();
  readonly inFlight = new InFlightRequests();
  hooks: WtSessionHooks = {};
  ops!: SessionOperations;
  /** The server's transport capabilities, once its initialize result was sent (server) or received (client). */
  serverCapabilities: ServerTransportCapabilities | undefined;
  isClosed = false;
  closeStarted: 'local' | 'remote' | 'error' | undefined;
  /** `$/shutdown` was sent or received: no new execution streams. */
  shuttingDown = false;
  /** When something last crossed the session (idle expiry). */
  lastActivity = Date.now();
  readonly #faults: ConnectionFault[] = [];
  readonly #listeners = new Set<() => void>();

  constructor(init: SessionCoreInit) {
    this.role = init.role;
    this.transcript = init.transcript;
    this.limits = init.limits;
    this.readings = init.readings;
    this.raw = init.raw;
    this.encodings = init.encodings;
    this.datagramsSupported = init.datagramsSupported;
    this.answers = init.answers;
    this.machine = new WtStateMachine(init.transcript);
  }

  /** How client-to-server requests travel from this end (the only ones streams and datagrams name). */
  get clientRequests(): 'sent' | 'received' {
    return this.role === 'client' ? 'sent' : 'received';
  }

  faults(): readonly ConnectionFault[] {
    return this.#faults;
  }

  /** Records something the peer broke. */
  fault(code: string, message: string, channel: TranscriptChannel, jsonRpcCode?: number): void {
    const fault: ConnectionFault = { code, message, channel, at: Date.now() };
    if (jsonRpcCode !== undefined) fault.jsonRpcCode = jsonRpcCode;
    this.#faults.push(fault);
  }

  /** Records what the peer broke on the control stream and answers it with an error. */
  refuse(id: string | number | null, code: number, faultCode: string, message: string): void {
    this.fault(faultCode, message, CONTROL, code);
    void this.sendError(id, code, message);
  }

  /** Sends a JSON-RPC error on the control stream (a failure to send is only noted). */
  async sendError(id: string | number | null, code: number, message: string, data?: unknown): Promise<void> {
    if (this.isClosed || !this.ops.controlOpen()) return;
    const error: Record<string, unknown> = { code, message };
    if (data !== undefined) error['data'] = data;
    if (id === null && this.hooks.bindingErrorId) id = this.hooks.bindingErrorId(id);
    await this.ops.send({ jsonrpc: '2.0', id, error }).catch((failure: unknown) => {
      this.transcript.event(`could not send error ${code}: ${asError(failure).message}`);
    });
  }

  /** Closes the session once what was written has gone out (the peer gets a moment to read it). */
  async closeAfterWrites(reason: string): Promise<void> {
    await this.ops.writesSettled();
    await this.until(() => this.isClosed, LOST_SYNC_CLOSE_DELAY_MS);
    await this.ops.close(reason);
  }

  /** Something crossed the session. */
  touch(): void {
    this.lastActivity = Date.now();
  }

  assertOpen(): void {
    if (this.isClosed) throw new ConnectionClosedError('the WebTransport session is closed');
  }

  /** Wakes every `until` waiting on the session's state. */
  changed(): void {
    for (const listener of [...this.#listeners]) listener();
  }

  /** Resolves true when `condition` holds (re-checked on every change), false after `timeoutMs`. */
  until(condition: () => boolean, timeoutMs?: number): Promise<boolean> {
    if (condition()) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = timeoutMs === undefined ? undefined : setTimeout(() => done(false), timeoutMs);
      const listener = () => {
        if (condition()) done(true);
      };
      const done = (value: boolean) => {
        if (timer) clearTimeout(timer);
        this.#listeners.delete(listener);
        resolve(value);
      };
      this.#listeners.add(listener);
    });
  }
}

export function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** The id of a message when it carries a string or a number, else null. */
export function idOf(message: unknown): string | number | null {
  const id = record(message)?.['id'];
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

export function asError(value: unknown): Error {
  return value instanceof Error ? value : new Error(String(value));
}
