// What a running mock server serves, in the lines `mock-server` prints at start (on stderr over
// stdio, where stdout carries the protocol) and the in-process stdio mock writes to its stderr.
import type { RunningMockServer } from './start.js';

/** What the running server serves, as printed at start. */
export function describeServer(server: RunningMockServer): string {
  const lines = [`mock server listening on ${server.url} (${server.transport})`];
  if (server.certificateHash !== undefined) lines.push(`certificate sha-256: ${server.certificateHash}`);
  lines.push(`tools: ${server.tools.join(', ')}`);
  lines.push(`wizards: ${server.wizards.length > 0 ? server.wizards.join(', ') : '(none)'}`);
  if (server.storeDir !== undefined) lines.push(`fastworkflow store: ${server.storeDir}`);
  const faults = server.faults.list();
  lines.push(`faults on: ${faults.length > 0 ? faults.join(', ') : '(none)'}`);
  if (server.readings !== 'recommended') lines.push(`readings: ${server.readings} (another allowed reading wherever the documents leave a choice)`);
  return lines.join('\n');
}
