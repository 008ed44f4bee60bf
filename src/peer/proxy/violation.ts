// What the validating proxy reports: one broken rule, seen in one message (or at the end of a
// session), citing the requirement ID of suites/requirements.json it breaks.
import type { RequirementLevel } from '../../protocol/requirements.js';

/** Which way a message went through the proxy. */
export type Flow = 'client-to-server' | 'server-to-client';

export interface Violation {
  /** Proxy session number (1 for the first client that connected). */
  session: number;
  /** Position of the offending message in the proxy record, or of the last one when judged at the end. */
  seq: number;
  at: number;
  direction: Flow;
  /** The method, or `response <id>`, or what else the rule was about (a datagram, a frame). */
  subject: string;
  requirement: string;
  level: RequirementLevel;
  /** What was wrong, in a sentence. */
  message: string;
  /** The offending message, when there is one. */
  actual?: unknown;
}

/** One line for the console: direction, subject, requirement, what was wrong. */
export function formatViolation(violation: Violation): string {
  const arrow = violation.direction === 'client-to-server' ? 'client->server' : 'server->client';
  return `VIOLATION [session ${violation.session} #${violation.seq}] ${arrow} ${violation.subject}: ${violation.requirement} (${violation.level}) ${violation.message}`;
}
