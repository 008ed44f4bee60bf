// Every server suite: the harness acts as the client against the implementation under test.
// Each module exports its `cases`; a case's `suite` names the suite it reports under (one module
// may hold cases of several suites, e.g. the Flow parts of the injection suite).
import { CaseRegistry, type ConformanceCase } from '../../src/harness/index.js';
import type { Requirements } from '../../src/protocol/requirements.js';
import { cases as negotiation } from './negotiation.js';
import { cases as lifecycle } from './lifecycle.js';
import { cases as mcpCore } from './mcp-core.js';
import { cases as badInput } from './bad-input.js';
import { cases as stateMachine } from './state-machine.js';
import { cases as validationRetry } from './validation-retry.js';
import { cases as cancellation } from './cancellation.js';
import { cases as timeouts } from './timeouts.js';
import { cases as sessionSecurity } from './session-security.js';
import { cases as flowInjection } from './flow-injection.js';
import { cases as framing } from './framing.js';
import { cases as injection } from './injection.js';
import { cases as streamLimits } from './stream-limits.js';
import { cases as executionStreams } from './execution-streams.js';
import { cases as datagrams } from './datagrams.js';
import { cases as shutdown } from './shutdown.js';
import { cases as fastworkflow } from './fastworkflow.js';
import { cases as httpTransport } from './http-transport.js';

/** The case modules, by file name. */
export const SERVER_CASE_MODULES: Readonly<Record<string, readonly ConformanceCase[]>> = {
  negotiation,
  lifecycle,
  'mcp-core': mcpCore,
  'bad-input': badInput,
  'state-machine': stateMachine,
  'validation-retry': validationRetry,
  cancellation,
  timeouts,
  'session-security': sessionSecurity,
  'flow-injection': flowInjection,
  framing,
  injection,
  'stream-limits': streamLimits,
  'execution-streams': executionStreams,
  datagrams,
  shutdown,
  fastworkflow,
  'http-transport': httpTransport,
};

/** Every server case, in module order. */
export function serverCases(): ConformanceCase[] {
  return Object.values(SERVER_CASE_MODULES).flat();
}

/** A registry holding every server case (registration checks each against the catalog). */
export function serverRegistry(catalog?: Requirements): CaseRegistry {
  const registry = new CaseRegistry(catalog, { role: 'server' });
  registry.registerAll(serverCases());
  return registry;
}
