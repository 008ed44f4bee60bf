import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidStateTransitionError } from '../../src/protocol/errors.js';
import {
  INTERACTION_STATES,
  SESSION_TRIGGERS,
  findIllegalObservation,
  findLiteralAnyMove,
  isReachable,
  isTerminal,
  nextState,
  type InteractionState,
  type SessionTrigger,
} from '../../src/protocol/flow-session.js';

describe('session state machine (000 §State Transitions)', () => {
  it('walks the wizard of 000 §Message Flow', () => {
    let state = nextState(null, 'start');
    expect(state).toBe('idle');
    for (const [trigger, expected] of [
      ['begin', 'active'],
      ['prompt', 'waiting_user'],
      ['respond', 'processing'],
      ['prompt', 'waiting_user'],
      ['respond', 'processing'],
      ['complete', 'completed'],
    ] as [SessionTrigger, InteractionState][]) {
      state = nextState(state, trigger);
      expect(state).toBe(expected);
    }
  });

  it('starts in waiting_user when there is an initial prompt (C-03)', () => {
    expect(nextState(null, 'start', true)).toBe('waiting_user');
  });

  it('refuses transitions the table lacks with -32003, and anything on a cancelled session with -32006', () => {
    expect(() => nextState('idle', 'respond')).toThrow(InvalidStateTransitionError);
    try {
      nextState('completed', 'cancel');
    } catch (error) {
      expect((error as InvalidStateTransitionError).jsonRpcCode).toBe(-32003);
      expect((error as InvalidStateTransitionError).requirement).toBe('FLOW-SM-4');
    }
    try {
      nextState('cancelled', 'cancel');
    } catch (error) {
      expect((error as InvalidStateTransitionError).code).toBe('ALREADY_CANCELLED');
      expect((error as InvalidStateTransitionError).jsonRpcCode).toBe(-32006);
    }
    expect(() => nextState('cancelled', 'respond')).toThrow(/already cancelled/);
  });

  it('lets every non-terminal state be cancelled or fail, and no terminal state move (C-23)', () => {
    fc.assert(
      fc.property(fc.constantFrom(...INTERACTION_STATES), fc.constantFrom(...SESSION_TRIGGERS), (state, trigger) => {
        if (isTerminal(state)) {
          expect(() => nextState(state, trigger)).toThrow(InvalidStateTransitionError);
        } else if (trigger === 'cancel' || trigger === 'fail') {
          expect(nextState(state, trigger)).toBe(trigger === 'cancel' ? 'cancelled' : 'error');
        }
      }),
    );
  });
});

describe('observed state sequences (FLOW-SM-2, C-28)', () => {
  it('accepts snapshots that skip intermediate states', () => {
    expect(isReachable('idle', 'waiting_user')).toBe(true);
    expect(findIllegalObservation(['idle', 'waiting_user', 'waiting_user', 'completed'])).toBeUndefined();
  });

  it('names the first impossible step', () => {
    expect(findIllegalObservation(['waiting_user', 'idle'])).toEqual({ index: 1, from: 'waiting_user', to: 'idle' });
    expect(findIllegalObservation(['waiting_user', 'cancelled', 'waiting_user'])).toEqual({ index: 2, from: 'cancelled', to: 'waiting_user' });
    expect(findIllegalObservation(['completed', 'waiting_user'])).toEqual({ index: 1, from: 'completed', to: 'waiting_user' });
    expect(findIllegalObservation(['cancelled', 'completed'])).toEqual({ index: 1, from: 'cancelled', to: 'completed' });
  });

  it("accepts C-23's literal reading (a finished session cancelled or failed) and names it", () => {
    expect(findIllegalObservation(['processing', 'completed', 'cancelled'])).toBeUndefined();
    expect(findIllegalObservation(['completed', 'error', 'cancelled'])).toBeUndefined();
    expect(findLiteralAnyMove(['processing', 'completed', 'cancelled'])).toEqual({ index: 2, from: 'completed', to: 'cancelled' });
    expect(findLiteralAnyMove(['waiting_user', 'cancelled'])).toBeUndefined();
    expect(nextState('completed', 'cancel', false, { literalAny: true })).toBe('cancelled');
    expect(() => nextState('cancelled', 'cancel', false, { literalAny: true })).toThrow(/already cancelled/);
    expect(() => nextState('completed', 'respond', false, { literalAny: true })).toThrow(InvalidStateTransitionError);
  });

  it('accepts every sequence the machine itself produces', () => {
    fc.assert(
      fc.property(fc.boolean(), fc.array(fc.constantFrom(...SESSION_TRIGGERS), { maxLength: 30 }), (initialPrompt, triggers) => {
        const states: InteractionState[] = [nextState(null, 'start', initialPrompt)];
        for (const trigger of triggers) {
          const current = states[states.length - 1] as InteractionState;
          try {
            states.push(nextState(current, trigger));
          } catch (error) {
            expect(error).toBeInstanceOf(InvalidStateTransitionError);
          }
        }
        expect(findIllegalObservation(states)).toBeUndefined();
      }),
    );
  });
});
