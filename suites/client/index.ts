// Every client suite: the harness plays the server and judges the client under test, which runs
// one scenario of docs/client-scenarios.md per case. Each module exports its `cases`.
import { CaseRegistry, type ConformanceCase } from '../../src/harness/index.js';
import type { Requirements } from '../../src/protocol/requirements.js';
import { cases as lifecycle } from './core/lifecycle.js';
import { cases as negotiation } from './webtransport/negotiation.js';
import { cases as mcpCore } from './core/mcp-core.js';
import { cases as executionStreams } from './webtransport/execution-streams.js';
import { cases as cancellation } from './core/cancellation.js';
import { cases as interaction } from './flow/interaction.js';
import { cases as shutdown } from './webtransport/shutdown.js';
import { cases as robustness } from './webtransport/robustness.js';

/** The case modules, by file name. */
export const CLIENT_CASE_MODULES: Readonly<Record<string, readonly ConformanceCase[]>> = {
  lifecycle,
  negotiation,
  'mcp-core': mcpCore,
  'execution-streams': executionStreams,
  cancellation,
  interaction,
  shutdown,
  robustness,
};

/** Every client case, in module order. */
export function clientCases(): ConformanceCase[] {
  return Object.values(CLIENT_CASE_MODULES).flat();
}

/** A registry holding every client case (registration checks each against the catalog and the client role). */
export function clientRegistry(catalog?: Requirements): CaseRegistry {
  const registry = new CaseRegistry(catalog, { role: 'client' });
  registry.registerAll(clientCases());
  return registry;
}
