// A run and the proxy blame the same messages on the same requirements. The SDK Client drives a
// session through the proxy to a mock server whose faults break shapes (the schemas' findings)
// and prompt rules; the proxy's record of it is then judged the way a run judges a case's
// transcript (the runner's schema checks, and the prompt rules the flow cases apply to each prompt
// and progress they meet), and the two lists of (message, requirement) must be the same.
import { describe, expect, it } from 'vitest';
import { judgeTranscript, messagesOf } from '../../../src/judge/index.js';
import { idKey } from '../../../src/protocol/jsonrpc.js';
import { requirements } from '../../../src/protocol/requirements.js';
import { SchemaRegistry } from '../../../src/schema/registry.js';
import type { TranscriptEntry } from '../../../src/transport/transcript.js';
import { isRecord } from '../../../src/wire/index.js';
import { progressProblems, promptProblems } from '../../../suites/support/flow.js';
import { runSdkSession, startPair } from './support.js';

const TEST_DEADLINE_MS = 120_000;
const catalog = requirements();
const registry = SchemaRegistry.load();

/** `#<seq> <requirement>`, sorted: one line per message and requirement it is blamed for. */
function lines(blamed: Iterable<string>): string[] {
  return [...new Set(blamed)].sort();
}

/** What a run blames the server's messages of a transcript on. */
function runBlame(entries: readonly TranscriptEntry[]): string[] {
  const blamed: string[] = [];
  // The runner's schema checks: a broken shape charged to its requirement (an INFO requirement is never a failure).
  for (const finding of judgeTranscript(registry, catalog, entries, { directions: ['received'] })) {
    if (finding.kind === 'violation' && finding.requirement !== undefined && catalog.get(finding.requirement).level !== 'INFO') blamed.push(`#${finding.seq} ${finding.requirement}`);
  }
  // The flow cases: every prompt object they are handed (initialPrompt, interaction.prompt's prompt,
  // interaction.continue's nextPrompt) and every progress object, by the suites' prompt rules.
  const starts = new Set<string>();
  for (const entry of entries) {
    for (const message of messagesOf(entry)) {
      if (!isRecord(message)) continue;
      if (entry.direction === 'sent' && message['method'] === 'interaction.start') starts.add(idKey(message['id']));
      if (entry.direction !== 'received') continue;
      let carried: { prompt?: unknown; progress?: unknown } = {};
      if (isRecord(message['result']) && starts.has(idKey(message['id']))) carried = { prompt: message['result']['initialPrompt'], progress: message['result']['progress'] };
      const params = isRecord(message['params']) ? message['params'] : {};
      if (message['method'] === 'interaction.prompt') carried = { prompt: params['prompt'], progress: params['progress'] };
      if (message['method'] === 'interaction.continue') carried = { prompt: params['nextPrompt'], progress: params['progress'] };
      const problems = [...(isRecord(carried.prompt) ? promptProblems(carried.prompt) : []), ...progressProblems(carried.progress)];
      for (const problem of problems) if (catalog.get(problem.requirement).level !== 'INFO') blamed.push(`#${entry.seq} ${problem.requirement}`);
    }
  }
  return lines(blamed);
}

const SESSIONS: { name: string; transport: 'http' | 'wt'; faults: string[]; flow?: boolean; blamed: string[] }[] = [
  { name: 'broken core shapes', transport: 'http', faults: ['tool-content-without-type', 'resource-without-name', 'prompt-message-role-system'], blamed: ['CORE-TOOLS-3', 'CORE-RES-1', 'CORE-PROMPTS-2'] },
  { name: 'a broken initialize result', transport: 'http', faults: ['capability-as-boolean'], blamed: ['CORE-CAP-6'] },
  {
    name: 'broken prompts and progress',
    transport: 'http',
    flow: true,
    faults: ['inverted-bounds', 'duplicate-choice-values', 'progress-beyond-total', 'uncompilable-pattern', 'default-wrong-type', 'choice-without-label'],
    blamed: ['FLOW-PROMPT-4', 'FLOW-PROMPT-6', 'FLOW-PROMPT-7', 'FLOW-PROMPT-15'],
  },
  { name: 'broken prompts over WebTransport', transport: 'wt', flow: true, faults: ['prompt-without-message', 'validation-required-as-string', 'start-without-state'], blamed: ['FLOW-PROMPT-3', 'FLOW-PROMPT-5', 'FLOW-START-2'] },
];

describe('a run and the proxy blame the same transcript alike', () => {
  it.each(SESSIONS)(
    '$name ($transport)',
    async ({ transport, faults, flow, blamed }) => {
      const pair = await startPair(transport, { faults });
      try {
        await runSdkSession(transport, pair.proxy.url, pair.proxy.certificateHash, flow ? { flow } : {});
        await pair.proxy.close();
        const entries = pair.proxy.record.entriesOf(1);
        const proxy = lines(pair.proxy.violations().filter((v) => v.direction === 'server-to-client').map((v) => `#${v.seq} ${v.requirement}`));
        const run = runBlame(entries);
        expect(proxy).toEqual(run);
        // Both saw what the faults break, not merely nothing.
        const requirementsBlamed = new Set(run.map((line) => line.split(' ')[1]));
        for (const id of blamed) expect(requirementsBlamed.has(id), `${id} in ${run.join(', ')}`).toBe(true);
      } finally {
        await pair.close();
      }
    },
    TEST_DEADLINE_MS,
  );
});
