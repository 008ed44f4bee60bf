// The MCP Flow session state machine: 000 §State Transitions as the profile reads it (C-03: a
// start with an initial prompt may go straight to waiting_user; C-23: completed, cancelled and
// error are terminal, or, read literally, "Any" state may still become cancelled or error; C-28:
// observers may skip intermediate states).
import { InvalidStateTransitionError } from './errors.js';

export const INTERACTION_STATES = ['idle', 'active', 'waiting_user', 'processing', 'completed', 'cancelled', 'error'] as const;
export type InteractionState = (typeof INTERACTION_STATES)[number];

export const TERMINAL_STATES: ReadonlySet<InteractionState> = new Set(['completed', 'cancelled', 'error']);

/**
 * What moves a session: `start` (interaction.start), `begin` (the tool begins execution),
 * `prompt` (interaction.prompt, or interaction.continue with nextPrompt), `respond` (an accepted
 * interaction.respond), `complete` (interaction.complete), `cancel` (interaction.cancel), `fail`
 * (an error occurs).
 */
export const SESSION_TRIGGERS = ['start', 'begin', 'prompt', 'respond', 'complete', 'cancel', 'fail'] as const;
export type SessionTrigger = (typeof SESSION_TRIGGERS)[number];

export interface SessionTransition {
  /** null: the session does not exist yet. */
  readonly from: InteractionState | null;
  readonly trigger: SessionTrigger;
  readonly to: InteractionState;
}

const NON_TERMINAL = INTERACTION_STATES.filter((s) => !TERMINAL_STATES.has(s));

export const SESSION_TRANSITIONS: readonly SessionTransition[] = Object.freeze([
  { from: null, trigger: 'start', to: 'idle' },
  // C-03: a start that carries an initialPrompt reports waiting_user (idle is accepted too).
  { from: null, trigger: 'start', to: 'waiting_user' },
  { from: 'idle', trigger: 'begin', to: 'active' },
  { from: 'active', trigger: 'prompt', to: 'waiting_user' },
  { from: 'waiting_user', trigger: 'respond', to: 'processing' },
  { from: 'processing', trigger: 'prompt', to: 'waiting_user' },
  { from: 'processing', trigger: 'complete', to: 'completed' },
  ...NON_TERMINAL.map((from) => ({ from, trigger: 'cancel' as const, to: 'cancelled' as const })),
  ...NON_TERMINAL.map((from) => ({ from, trigger: 'fail' as const, to: 'error' as const })),
] satisfies SessionTransition[]);

/**
 * C-23, the literal reading of 000's "Any → CANCELLED" and "Any → ERROR": a finished session may
 * still be cancelled or fail (but never cancelled twice, and never back into the session).
 */
export const LITERAL_ANY_TRANSITIONS: readonly SessionTransition[] = Object.freeze([
  ...[...TERMINAL_STATES].filter((s) => s !== 'cancelled').map((from) => ({ from, trigger: 'cancel' as const, to: 'cancelled' as const })),
  ...[...TERMINAL_STATES].filter((s) => s !== 'error').map((from) => ({ from, trigger: 'fail' as const, to: 'error' as const })),
] satisfies SessionTransition[]);

/** Which reading of C-23 a machine follows: `literalAny` adds LITERAL_ANY_TRANSITIONS. */
export interface TableReading {
  literalAny?: boolean;
}

function transitionsFor(reading: TableReading): readonly SessionTransition[] {
  return reading.literalAny ? [...SESSION_TRANSITIONS, ...LITERAL_ANY_TRANSITIONS] : SESSION_TRANSITIONS;
}

export function isInteractionState(value: unknown): value is InteractionState {
  return typeof value === 'string' && (INTERACTION_STATES as readonly string[]).includes(value);
}

export function isTerminal(state: InteractionState): boolean {
  return TERMINAL_STATES.has(state);
}

/** The states a trigger can lead to from `from` (two for `start`, at most one otherwise). */
export function targetsOf(from: InteractionState | null, trigger: SessionTrigger, reading: TableReading = {}): InteractionState[] {
  return transitionsFor(reading).filter((t) => t.from === from && t.trigger === trigger).map((t) => t.to);
}

/**
 * The state after `trigger`; throws InvalidStateTransitionError (-32003, or -32006 for a cancelled
 * session) when the table has no such transition. For `start`, `withInitialPrompt` picks
 * waiting_user over idle.
 */
export function nextState(from: InteractionState | null, trigger: SessionTrigger, withInitialPrompt = false, reading: TableReading = {}): InteractionState {
  const targets = targetsOf(from, trigger, reading);
  if (targets.length === 0) throw new InvalidStateTransitionError(from, trigger);
  if (trigger === 'start') return withInitialPrompt ? 'waiting_user' : 'idle';
  return targets[0] as InteractionState;
}

/** Whether some sequence of transitions leads from `from` to `to` (a state reaches itself). */
export function isReachable(from: InteractionState, to: InteractionState, reading: TableReading = {}): boolean {
  const transitions = transitionsFor(reading);
  const seen = new Set<InteractionState>([from]);
  const queue: InteractionState[] = [from];
  while (queue.length > 0) {
    const state = queue.shift() as InteractionState;
    if (state === to) return true;
    for (const t of transitions) {
      if (t.from === state && !seen.has(t.to)) {
        seen.add(t.to);
        queue.push(t.to);
      }
    }
  }
  return false;
}

export interface IllegalObservation {
  /** Index in the sequence of the state that could not follow its predecessor. */
  index: number;
  from: InteractionState;
  to: InteractionState;
}

/**
 * FLOW-SM-2 / FLOW-SM-3: the first pair of consecutive observed states of one session that no
 * path of transitions joins under any accepted reading (a change out of a terminal state is only
 * allowed into cancelled or error, C-23's literal reading), or undefined.
 */
export function findIllegalObservation(states: readonly InteractionState[]): IllegalObservation | undefined {
  for (let index = 1; index < states.length; index++) {
    const from = states[index - 1] as InteractionState;
    const to = states[index] as InteractionState;
    if (from === to) continue;
    if (!isReachable(from, to, { literalAny: true })) return { index, from, to };
  }
  return undefined;
}

/** The first observed change out of a finished session (C-23's literal reading, reported as INFO), or undefined. */
export function findLiteralAnyMove(states: readonly InteractionState[]): IllegalObservation | undefined {
  for (let index = 1; index < states.length; index++) {
    const from = states[index - 1] as InteractionState;
    const to = states[index] as InteractionState;
    if (from !== to && isTerminal(from)) return { index, from, to };
  }
  return undefined;
}
