// The case registry: every case once, by stable ID, each tied to requirements that the catalog
// defines. Registration checks the definition, so a bad case fails at load time, not mid-run.
import { closestNames } from '../common/names.js';
import { requirements as projectRequirements, type Requirements } from '../protocol/requirements.js';
import type { ConformanceCase, RegisteredCase } from './case.js';
import { CaseUnknownRequirementError, DuplicateCaseError, InvalidCaseError, UnknownCaseError } from './errors.js';
import type { RequirementLevel } from './result.js';

/** Lower-case segments of letters, digits, '.', '_' and '-', separated by '/'. */
export const CASE_ID_PATTERN = /^[a-z0-9][a-z0-9._-]*(?:\/[a-z0-9][a-z0-9._-]*)*$/;
export const SUITE_PATTERN = /^[a-z0-9][a-z0-9._-]*$/;
export const DEFAULT_TIME_LIMIT_MS = 10_000;
/** Client cases start a process per case: their default limit leaves it time to start. */
export const DEFAULT_CLIENT_TIME_LIMIT_MS = 20_000;
const TRANSPORTS = new Set(['webtransport', 'http', 'stdio']);

const LEVEL_RANK: Record<RequirementLevel, number> = { MUST: 3, SHOULD: 2, MAY: 1, INFO: 0 };

/** The strongest of the levels (MUST > SHOULD > MAY > INFO). */
export function strongestLevel(levels: Iterable<RequirementLevel>): RequirementLevel {
  let best: RequirementLevel = 'INFO';
  for (const level of levels) if (LEVEL_RANK[level] > LEVEL_RANK[best]) best = level;
  return best;
}

export interface CaseRegistryOptions {
  /**
   * What the cases judge: a server registry refuses a case citing a client-only requirement and a
   * client registry one citing a server-only requirement. Default: either (no role check).
   */
  role?: 'server' | 'client';
}

export class CaseRegistry {
  readonly requirements: Requirements;
  readonly role: 'server' | 'client' | undefined;
  readonly #cases = new Map<string, RegisteredCase>();

  constructor(catalog: Requirements = projectRequirements(), options: CaseRegistryOptions = {}) {
    this.requirements = catalog;
    this.role = options.role;
  }

  /**
   * Checks and adds a case; throws InvalidCaseError (also for a requirement that is withdrawn or not
   * testable from outside), CaseUnknownRequirementError or DuplicateCaseError.
   */
  register(definition: ConformanceCase): RegisteredCase {
    const id = definition.id;
    if (typeof id !== 'string' || !CASE_ID_PATTERN.test(id)) {
      throw new InvalidCaseError(String(id), 'the ID must be lower-case segments ([a-z0-9._-]) separated by "/"');
    }
    if (this.#cases.has(id)) throw new DuplicateCaseError(id);
    if (typeof definition.suite !== 'string' || !SUITE_PATTERN.test(definition.suite)) {
      throw new InvalidCaseError(id, `suite ${JSON.stringify(definition.suite)} must be one lower-case word ([a-z0-9._-])`);
    }
    if (typeof definition.title !== 'string' || definition.title.trim() === '') throw new InvalidCaseError(id, 'the title must be a non-empty string');
    if (typeof definition.run !== 'function') throw new InvalidCaseError(id, '"run" must be a function');
    if (!Array.isArray(definition.requirements) || definition.requirements.length === 0) {
      throw new InvalidCaseError(id, 'a case checks at least one requirement');
    }
    if (new Set(definition.requirements).size !== definition.requirements.length) throw new InvalidCaseError(id, 'a requirement is listed twice');
    const levels: RequirementLevel[] = [];
    for (const requirementId of definition.requirements) {
      if (!this.requirements.has(requirementId)) throw new CaseUnknownRequirementError(id, requirementId);
      const requirement = this.requirements.get(requirementId);
      if (requirement.withdrawn !== undefined) {
        throw new InvalidCaseError(id, `requirement ${requirementId} is withdrawn (${requirement.withdrawn}); no case may check it`);
      }
      if (requirement.testable !== true) {
        throw new InvalidCaseError(id, `requirement ${requirementId} is not testable from outside (${requirement.testable}); no case may claim to check it`);
      }
      if (this.role !== undefined && requirement.role !== 'both' && requirement.role !== this.role) {
        throw new InvalidCaseError(id, `requirement ${requirementId} binds the ${requirement.role}; this registry holds ${this.role} cases`);
      }
      levels.push(requirement.level);
    }
    const timeLimitMs = definition.timeLimitMs ?? (this.role === 'client' ? DEFAULT_CLIENT_TIME_LIMIT_MS : DEFAULT_TIME_LIMIT_MS);
    if (!Number.isFinite(timeLimitMs) || timeLimitMs <= 0) throw new InvalidCaseError(id, `timeLimitMs must be a positive number, got ${timeLimitMs}`);
    for (const transport of definition.transports ?? []) {
      if (!TRANSPORTS.has(transport)) throw new InvalidCaseError(id, `unknown transport ${JSON.stringify(transport)}`);
    }
    const registered: RegisteredCase = Object.freeze({ ...definition, requirements: [...definition.requirements], level: strongestLevel(levels), timeLimitMs });
    this.#cases.set(id, registered);
    return registered;
  }

  registerAll(definitions: Iterable<ConformanceCase>): void {
    for (const definition of definitions) this.register(definition);
  }

  has(id: string): boolean {
    return this.#cases.has(id);
  }

  get(id: string): RegisteredCase {
    const found = this.#cases.get(id);
    if (!found) throw new UnknownCaseError(id, closestNames(id, this.#cases.keys()));
    return found;
  }

  /** Every case, in registration order. */
  list(): RegisteredCase[] {
    return [...this.#cases.values()];
  }

  suites(): string[] {
    return [...new Set(this.list().map((c) => c.suite))];
  }

  get size(): number {
    return this.#cases.size;
  }
}
