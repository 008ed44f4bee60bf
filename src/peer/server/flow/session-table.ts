// The MCP Flow sessions the engine holds and their lifetimes: new ids (FLOW-SEC-2), lookup of the
// session a request names (stateful, or stateless in a signed token, bound to the connection that
// created it under FLOW-SEC-4's first reading), the rate limit (FLOW-RATE-1), the inactivity
// timeout with its warning (FLOW-TIMEOUT-1/-4, C-22), expiry, and clean-up after a terminal state
// (FLOW-SEC-7) once the retention time has passed.
import { randomBytes } from 'node:crypto';
import { isTerminal, type InteractionState } from '../../../protocol/flow-session.js';
import { JSONRPC_ERROR } from '../../../protocol/error-codes.js';
import type { ActiveFaults, RequestContext, ServerSessionContext } from '../extension.js';
import type { ExportPayload } from './session.js';
import type { ExportStream } from './export-stream.js';
import type { ResolvedFlowOptions, StatelessOptions } from './options.js';
import type { SessionRecord } from './session.js';
import { invalidParams, limitExceeded, sessionExpired, sessionNotFound } from './session-errors.js';
import { decodeToken, encodeToken, TokenRejectedError } from './tokens.js';
import type { Wizard } from './wizard.js';

/** Rate windows kept before idle ones are pruned (stateless sessions are never told to end). */
const MAX_RATE_WINDOWS = 10_000;

/** Logger name of the timeout warnings (notifications/message at level warning, profile C-22). */
export const TIMEOUT_WARNING_LOGGER = 'mcp-flow';

/** A session as the engine holds it while it works on it. */
export interface LiveSession {
  record: SessionRecord;
  wizard: Wizard;
  /** The creating connection's context: the server-to-client requests go through it. */
  ctx: ServerSessionContext;
  /** Bumped when the session is cancelled, finished or expired: pending work checks it and stops. */
  epoch: number;
  timers: (() => void)[];
  /** The client's answer to interaction.complete, once it came. */
  completion?: unknown;
  /** The exported file, rendered when the completing answer was accepted, and its execution stream if it has one (C-32). */
  export?: { file: ExportPayload; stream?: ExportStream };
  /** Other connections the session is served to (only under the sessions-shared-across-connections fault). */
  joinedBy?: Set<string>;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export class SessionTable {
  readonly #options: ResolvedFlowOptions;
  readonly #wizards: ReadonlyMap<string, Wizard>;
  readonly #sessions = new Map<string, LiveSession>();
  /** Expired session ids (and their connection) that still answer -32002 until retention ends. */
  readonly #expired = new Map<string, string>();
  /** Stateless mode: sessions that reached a terminal state, so that their older tokens are refused. */
  readonly #finished = new Map<string, InteractionState>();
  readonly #requestTimes = new Map<string, number[]>();
  #counter = 0;
  #lastFinishedId: string | undefined;
  /** The last two sessions started (the leak-foreign-session fault reads the other one). */
  lastStarted: SessionRecord | undefined;
  previousStarted: SessionRecord | undefined;

  constructor(options: ResolvedFlowOptions, wizards: ReadonlyMap<string, Wizard>) {
    this.#options = options;
    this.#wizards = wizards;
  }

  /** Live sessions held in memory (stateful mode). */
  get size(): number {
    return this.#sessions.size;
  }

  get(id: string): LiveSession | undefined {
    return this.#sessions.get(id);
  }

  has(id: string): boolean {
    return this.#sessions.has(id);
  }

  /** Holds a new session (stateful mode) and remembers it as the last started. */
  add(live: LiveSession): void {
    this.previousStarted = this.lastStarted;
    this.lastStarted = live.record;
    if (this.#options.stateless === undefined) this.#sessions.set(live.record.id, live);
  }

  /**
   * FAULT sessions-shared-across-connections: a live session another connection started with the
   * same toolName and the same non-empty context, now also served to `connectionId`.
   */
  joinElsewhere(toolName: string, context: Record<string, unknown>, connectionId: string): LiveSession | undefined {
    if (Object.keys(context).length === 0) return undefined;
    const key = JSON.stringify(context);
    const found = [...this.#sessions.values()].find(
      (s) => s.record.toolName === toolName && s.record.connectionId !== connectionId && !isTerminal(s.record.state) && JSON.stringify(s.record.context) === key,
    );
    if (found !== undefined) (found.joinedBy ??= new Set()).add(connectionId);
    return found;
  }

  /** The sessions of one connection that have not ended. */
  liveOf(connectionId: string): LiveSession[] {
    return [...this.#sessions.values()].filter((s) => s.record.connectionId === connectionId && !isTerminal(s.record.state));
  }

  /** Stateless mode: remembers a session's terminal state, so that its older tokens are refused. */
  markFinished(id: string, state: InteractionState): void {
    if (this.#options.stateless !== undefined) this.#finished.set(id, state);
  }

  #now(): number {
    return this.#options.clock.now();
  }

  /** The id the client sees: the session id, or in stateless mode a token carrying the record. */
  publicId(live: LiveSession): string {
    const stateless = this.#options.stateless;
    if (stateless === undefined) return live.record.id;
    return encodeToken(stateless.secret, { sessionId: live.record.id, state: live.record }, stateless.form);
  }

  /** 128+ random bits (FLOW-SEC-2, FLOW-SEC-9), unless a fault says otherwise. */
  newId(faults: ActiveFaults): string {
    if (faults.has('sequential-session-ids')) return `session_${++this.#counter}`;
    if (faults.has('reuse-session-id') && this.#lastFinishedId !== undefined) {
      const id = this.#lastFinishedId;
      this.#lastFinishedId = undefined;
      const old = this.#sessions.get(id);
      if (old !== undefined) this.#clearTimers(old);
      this.#sessions.delete(id);
      return id;
    }
    // FAULT short-session-ids (FLOW-SEC-9): 96 random bits instead of 144.
    return `session_${randomBytes(faults.has('short-session-ids') ? 12 : 18).toString('base64url')}`;
  }

  // ---- limits and timeouts -----------------------------------------------------------------

  /** FLOW-RATE-1: counts a request naming the session; false when it is over the limit. */
  #withinRate(id: string): boolean {
    const { requestsPerWindow, windowMs } = this.#options.limits;
    const now = this.#now();
    if (this.#requestTimes.size > MAX_RATE_WINDOWS) {
      for (const [key, list] of this.#requestTimes) if (list.every((t) => now - t >= windowMs)) this.#requestTimes.delete(key);
    }
    const times = (this.#requestTimes.get(id) ?? []).filter((t) => now - t < windowMs);
    if (times.length >= requestsPerWindow) {
      this.#requestTimes.set(id, times);
      return false;
    }
    times.push(now);
    this.#requestTimes.set(id, times);
    return true;
  }

  #isOverdue(record: SessionRecord, faults: ActiveFaults): boolean {
    if (faults.has('no-expiry') || isTerminal(record.state)) return false;
    const now = this.#now();
    return now - record.lastActivityAt >= record.timeoutMs || now - record.createdAt >= this.#options.limits.maxDurationMs;
  }

  #clearTimers(live: LiveSession): void {
    for (const cancel of live.timers.splice(0)) cancel();
  }

  /** Records activity and (stateful mode) re-arms the warning and expiry timers. */
  touch(live: LiveSession): void {
    const record = live.record;
    record.lastActivityAt = Math.max(record.lastActivityAt, this.#now());
    if (this.#options.stateless !== undefined) return;
    this.#clearTimers(live);
    if (isTerminal(record.state)) return;
    const { clock, limits } = this.#options;
    const idleLeft = record.timeoutMs - (this.#now() - record.lastActivityAt);
    const durationLeft = limits.maxDurationMs - (this.#now() - record.createdAt);
    const left = Math.max(0, Math.min(idleLeft, durationLeft));
    const lead = Math.min(this.#options.timeoutWarningLeadMs ?? Math.floor(record.timeoutMs / 5), left);
    // FAULT no-expiry-warning (FLOW-TIMEOUT-4): the session expires unannounced.
    if (lead > 0 && left - lead > 0 && !live.ctx.faults.has('no-expiry-warning')) {
      live.timers.push(clock.setTimer(left - lead, () => this.#warn(live, lead)));
    }
    // FAULT no-expiry: the warning still announces the expiry, which never comes.
    if (live.ctx.faults.has('no-expiry')) return;
    live.timers.push(clock.setTimer(left, () => this.#expire(live)));
  }

  /** FLOW-TIMEOUT-4 (C-22): notifications/message at level warning naming the session. */
  #warn(live: LiveSession, lead: number): void {
    if (isTerminal(live.record.state) || !this.#sessions.has(live.record.id)) return;
    const sessionId = this.publicId(live);
    live.ctx.log(
      this.#options.timeoutWarningLevel,
      {
        sessionId,
        expiresAt: live.record.lastActivityAt + live.record.timeoutMs,
        message: `Session ${sessionId} expires in ${lead} ms without activity`,
      },
      TIMEOUT_WARNING_LOGGER,
    );
  }

  #expire(live: LiveSession): void {
    const record = live.record;
    if (this.#sessions.get(record.id) !== live || isTerminal(record.state)) return;
    live.epoch++;
    this.#clearTimers(live);
    this.#sessions.delete(record.id);
    this.#requestTimes.delete(record.id);
    // Retention 0: cleaned up at once, so the session is unknown (-32001) rather than expired (-32002).
    if (this.#options.retentionMs === 0) return;
    this.#expired.set(record.id, record.connectionId);
    this.#options.clock.setTimer(this.#options.retentionMs, () => this.#expired.delete(record.id));
  }

  /** A session reached completed, cancelled or error. */
  finish(live: LiveSession): void {
    const record = live.record;
    live.epoch++;
    this.#clearTimers(live);
    this.#lastFinishedId = record.id;
    const forget = (): void => {
      if (this.#sessions.get(record.id) === live) this.#sessions.delete(record.id);
      this.#finished.delete(record.id);
      this.#requestTimes.delete(record.id);
    };
    let keep = this.#options.retentionMs;
    if (this.#options.stateless !== undefined) {
      this.#finished.set(record.id, record.state);
      // Every older token of the session has expired once its timeout has passed: until then it must stay refused.
      keep = Math.max(keep, Math.min(record.timeoutMs, this.#options.limits.maxDurationMs));
    }
    // Sessions are cleaned up after completion (FLOW-SEC-7); until then getState shows the terminal state (FLOW-STATE-6).
    if (keep === 0) forget();
    else live.timers.push(this.#options.clock.setTimer(keep, forget));
  }

  /** The session failed (the client refused or never acknowledged a prompt, or a limit was hit). */
  fail(live: LiveSession): void {
    if (isTerminal(live.record.state)) return;
    live.record.state = 'error';
    live.record.currentPrompt = null;
    this.finish(live);
  }

  // ---- session lookup ----------------------------------------------------------------------

  /** The session a request names, or the RpcError for it (-32001, -32002, or a limit error). */
  async resolve(sessionId: string, ctx: RequestContext): Promise<LiveSession> {
    const faults = ctx.faults;
    const live = this.#options.stateless === undefined ? this.#resolveStateful(sessionId, ctx) : this.#resolveStateless(sessionId, ctx);
    if (this.#isOverdue(live.record, faults)) {
      this.#expire(live);
      // FAULT expired-token-not-found (FLOW-STATELESS-6): an expired token is not told from an unknown one.
      if (this.#options.stateless !== undefined && faults.has('expired-token-not-found')) throw sessionNotFound(faults, sessionId, ctx.method);
      throw sessionExpired(faults, sessionId);
    }
    if (!this.#withinRate(live.record.id)) {
      return limitExceeded(ctx, `Rate limit exceeded for session ${sessionId}`, sessionId, 'requestsPerWindow', this.#options.limits.requestsPerWindow);
    }
    return live;
  }

  #resolveStateful(sessionId: string, ctx: RequestContext): LiveSession {
    const bound = this.#options.bindSessionsToConnection;
    const live = this.#sessions.get(sessionId);
    if (live === undefined) {
      const owner = this.#expired.get(sessionId);
      if (owner !== undefined && (!bound || owner === ctx.connectionId)) throw sessionExpired(ctx.faults, sessionId);
      throw sessionNotFound(ctx.faults, sessionId, ctx.method);
    }
    // FLOW-SEC-4 reading 1: another connection's session does not exist for this one (unless it joined it, a fault).
    if (bound && live.record.connectionId !== ctx.connectionId && !live.joinedBy?.has(ctx.connectionId)) throw sessionNotFound(ctx.faults, sessionId, ctx.method);
    return live;
  }

  #resolveStateless(token: string, ctx: RequestContext): LiveSession {
    const faults = ctx.faults;
    const { secret, form } = this.#options.stateless as StatelessOptions;
    if (faults.has('reject-own-token')) throw sessionNotFound(faults, token);
    let record: SessionRecord;
    try {
      record = decodeToken<SessionRecord>(secret, token, { verify: !faults.has('accept-tampered-token'), ...(form !== undefined ? { form } : {}) }).state;
    } catch (error) {
      if (error instanceof TokenRejectedError) {
        // C-19: a tampered token names no session (-32001), or is a malformed parameter (-32602).
        if (this.#options.tamperedTokenCode === JSONRPC_ERROR.InvalidParams) throw invalidParams(`Invalid session token: ${error.problem}`, { sessionId: token });
        throw sessionNotFound(faults, token);
      }
      throw error;
    }
    const wizard = typeof record.wizardName === 'string' ? this.#wizards.get(record.wizardName) : undefined;
    if (wizard === undefined || typeof record.id !== 'string' || !Array.isArray(record.history) || !isObject(record.accumulatedData)) {
      throw sessionNotFound(faults, token);
    }
    if (this.#options.bindSessionsToConnection && record.connectionId !== ctx.connectionId) throw sessionNotFound(faults, token);
    const finished = this.#finished.get(record.id);
    if (finished !== undefined && !isTerminal(record.state)) {
      record.state = finished;
      record.currentPrompt = null;
      record.stepId = null;
    }
    return { record, wizard, ctx, epoch: 0, timers: [] };
  }

  /** The connection ended: its sessions end with it. */
  endConnection(connectionId: string): void {
    for (const live of [...this.#sessions.values()]) {
      if (live.record.connectionId !== connectionId) continue;
      live.epoch++;
      this.#clearTimers(live);
      this.#sessions.delete(live.record.id);
      this.#requestTimes.delete(live.record.id);
    }
    for (const [id, owner] of [...this.#expired]) if (owner === connectionId) this.#expired.delete(id);
  }
}
