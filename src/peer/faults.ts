// One fault model for every mock peer (the mock server's core, MCP Flow engine, FastWorkflow
// profile and bindings, and the mock client): a fault is a deliberate breakage that makes the peer
// break exactly one requirement, named by its ID in suites/requirements.json. A catalog is a list of
// `defineFault` entries; a `FaultSet` is the faults switched on for one peer, checked against its
// catalog. Code honours a fault either by asking `has(name)` at the one place it changes behaviour,
// or through a hook table (`rewrite`, `hooks`): the fault's rewrite of a value the peer is about to
// send lives next to the others of its kind, not as a branch inside the class that sends it.
import { closestNames } from '../common/names.js';
import type { TransportKind } from '../transport/connection.js';

/** One deliberate breakage: switching it on makes the peer violate exactly one requirement. */
export interface FaultDefinition {
  /** kebab-case, unique across the peer's whole catalog. */
  readonly name: string;
  /** The requirement ID (suites/requirements.json) the fault breaks. */
  readonly requirement: string;
  /** What the peer does differently, in one sentence. */
  readonly description: string;
  /** The transports on which the fault has an effect; every transport when absent. */
  readonly transports?: readonly TransportKind[];
}

/** A frozen catalog entry. */
export function defineFault(
  name: string,
  requirement: string,
  description: string,
  options: { transports?: readonly TransportKind[] } = {},
): FaultDefinition {
  const transports = options.transports === undefined ? undefined : Object.freeze([...options.transports]);
  return Object.freeze({ name, requirement, description, ...(transports ? { transports } : {}) });
}

/** Per fault name, what the fault does at one hook point (only the faults that act there are named). */
export type FaultHooks<H> = Readonly<Partial<Record<string, H>>>;

/** The errors a FaultSet throws for a bad name or a bad catalog (each peer has its own classes). */
export interface FaultSetErrors {
  unknown(name: string, suggestions: readonly string[]): Error;
  duplicate(name: string): Error;
}

export { closestNames };

class PlainFaultError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.name = 'FaultError';
    this.code = code;
  }
}

const PLAIN_ERRORS: FaultSetErrors = {
  unknown: (name, suggestions) =>
    new PlainFaultError(
      'UNKNOWN_FAULT',
      `unknown fault ${JSON.stringify(name)}${suggestions.length > 0 ? ` (did you mean ${suggestions.map((s) => JSON.stringify(s)).join(', ')}?)` : ''}`,
    ),
  duplicate: (name) => new PlainFaultError('DUPLICATE_FAULT', `fault ${JSON.stringify(name)} is defined more than once`),
};

/** The faults switched on for one peer, checked against its catalog when constructed. */
export class FaultSet {
  readonly #active: ReadonlySet<string>;
  readonly #catalog: ReadonlyMap<string, FaultDefinition>;

  /** Throws `errors.unknown` for a name the catalog lacks, `errors.duplicate` for a catalog with a repeated name. */
  constructor(names: Iterable<string>, catalog: readonly FaultDefinition[], errors: FaultSetErrors = PLAIN_ERRORS) {
    const byName = new Map<string, FaultDefinition>();
    for (const fault of catalog) {
      if (byName.has(fault.name)) throw errors.duplicate(fault.name);
      byName.set(fault.name, fault);
    }
    const active = new Set<string>();
    for (const name of names) {
      if (!byName.has(name)) throw errors.unknown(name, closestNames(name, byName.keys()));
      active.add(name);
    }
    this.#active = active;
    this.#catalog = byName;
  }

  has(name: string): boolean {
    return this.#active.has(name);
  }

  /** Active fault names, in the order given. */
  list(): string[] {
    return [...this.#active];
  }

  /** The catalog entry of an active (or known) fault. */
  definition(name: string): FaultDefinition | undefined {
    return this.#catalog.get(name);
  }

  /** The hooks `table` holds for the active faults, in the order the faults were switched on. */
  hooks<H>(table: FaultHooks<H>): H[] {
    const found: H[] = [];
    for (const name of this.#active) {
      const hook = table[name];
      if (hook !== undefined) found.push(hook);
    }
    return found;
  }

  /** `value` passed through the rewrite `table` holds for each active fault (unchanged when none does). */
  rewrite<T>(table: FaultHooks<(value: T) => T>, value: T): T {
    let result = value;
    for (const rewrite of this.hooks(table)) result = rewrite(result);
    return result;
  }
}
