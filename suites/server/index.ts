// Every server suite: the harness acts as the client against the implementation under test.
// Each module exports its `cases`; a case's `suite` names the suite it reports under (one module
// may hold cases of several suites, e.g. the Flow parts of the injection suite).
import { CaseRegistry, type ConformanceCase } from '../../src/harness/index.js';
import type { Requirements } from '../../src/protocol/requirements.js';
import { cases as negotiation } from './webtransport/negotiation.js';
import { cases as lifecycle } from './core/lifecycle.js';
import { cases as mcpCore } from './core/mcp-core/index.js';
import { cases as badInput } from './core/bad-input/index.js';
import { cases as stateMachine } from './flow/state-machine.js';
import { cases as validationRetry } from './flow/validation-retry.js';
import { cases as cancellation } from './core/cancellation.js';
import { cases as timeouts } from './flow/timeouts.js';
import { cases as sessionSecurity } from './flow/session-security.js';
import { cases as flowInjection } from './flow/flow-injection.js';
import { cases as framing } from './webtransport/framing.js';
import { cases as injection } from './webtransport/injection.js';
import { cases as streamLimits } from './webtransport/stream-limits.js';
import { cases as executionStreams } from './webtransport/execution-streams.js';
import { cases as datagrams } from './webtransport/datagrams.js';
import { cases as shutdown } from './webtransport/shutdown.js';
import { cases as fastworkflow } from './fastworkflow/index.js';
import { cases as httpTransport } from './core/http-transport.js';

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
