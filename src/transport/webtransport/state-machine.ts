// The connection state machine of 001 §1, explicit: every transition is checked against the
// table and recorded in the transcript.
import type { WtConnectionState } from '../connection.js';
import type { Transcript } from '../transcript.js';

/** Allowed transitions (001 §1 "State Transitions"; any state may go to CLOSED on transport error). */
const TRANSITIONS: Record<WtConnectionState, readonly WtConnectionState[]> = {
  CLOSED: ['CONNECTED'],
  CONNECTED: ['CONTROL_STREAM_OPENED', 'CLOSED'],
  CONTROL_STREAM_OPENED: ['INITIALIZING', 'CLOSED'],
  // An initialize answered with an error leaves the session waiting for another initialize.
  INITIALIZING: ['READY', 'CONTROL_STREAM_OPENED', 'CLOSED'],
  READY: ['CLOSED'],
};

export class WtStateMachine {
  #state: WtConnectionState = 'CLOSED';
  readonly #transcript: Transcript;

  constructor(transcript: Transcript) {
    this.#transcript = transcript;
  }

  get state(): WtConnectionState {
    return this.#state;
  }

  /** Moves to `to` when the table allows it; returns whether it moved. */
  transition(to: WtConnectionState, why: string): boolean {
    if (this.#state === to) return false;
    if (!TRANSITIONS[this.#state].includes(to)) return false;
    this.#transcript.event(`state ${this.#state} -> ${to} (${why})`);
    this.#state = to;
    return true;
  }
}
