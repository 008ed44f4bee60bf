// Record a session through the proxy, then replay its client side: against a fresh mock server
// every answer is the same (server request ids, MCP Flow session ids and timestamps normalised);
// against a mock server with a fault the answers it changes differ.
import { writeFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectUpstream, diff, readRecordFile, replaySession, type RecordedSession } from '../../../src/peer/proxy/index.js';
import { startMockServer } from '../../../src/peer/server/index.js';
import { runSdkSession, startPair, upstreamOf } from './support.js';

const TEST_DEADLINE_MS = 120_000;
const REPLAY_DEADLINE_MS = 10_000;

describe.each(['http', 'wt'] as const)('record and replay over %s', (transport) => {
  let folder: string;
  let sessions: RecordedSession[];

  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'proxy-replay-'));
    const pair = await startPair(transport);
    try {
      const outcome = await runSdkSession(transport, pair.proxy.url, pair.proxy.certificateHash, { flow: true });
      expect(outcome.failures).toEqual([]);
      await pair.proxy.close();
      const file = join(folder, 'session.ndjson');
      await pair.proxy.record.transcript.writeNdjson(file);
      sessions = await readRecordFile(file);
    } finally {
      await pair.close();
    }
  }, TEST_DEADLINE_MS);

  afterAll(async () => {
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  async function replayAgainst(faults: string[]) {
    const server = await startMockServer({ transport, port: 0, fastworkflow: false, faults, ...(transport === 'wt' ? { server: { progressDatagrams: false } } : {}) });
    try {
      const connection = await connectUpstream(upstreamOf(server));
      try {
        return await replaySession(sessions[0]!, connection, { timeoutMs: REPLAY_DEADLINE_MS });
      } finally {
        await connection.close('replay done');
      }
    } finally {
      await server.close();
    }
  }

  it('the record holds one session with the client and server sides', () => {
    expect(sessions).toHaveLength(1);
    expect(sessions[0]!.entries.some((entry) => entry.direction === 'sent' && (entry.decoded as { method?: string }).method === 'interaction.start')).toBe(true);
    expect(sessions[0]!.entries.some((entry) => entry.direction === 'received' && (entry.decoded as { method?: string }).method === 'interaction.prompt')).toBe(true);
  });

  it(
    'against a fresh mock server: every answer is the same',
    async () => {
      const answers = await replayAgainst([]);
      expect(answers.length).toBeGreaterThan(10);
      const differing = answers.filter((answer) => answer.differences.length > 0).map((answer) => `${answer.subject}: ${JSON.stringify(answer.differences)}`);
      expect(differing).toEqual([]);
      // The wizard went through again: its prompts and its completion came back as server requests.
      expect(answers.filter((answer) => answer.subject.startsWith('server request interaction.prompt')).length).toBe(7);
      expect(answers.some((answer) => answer.subject.startsWith('server request interaction.complete'))).toBe(true);
    },
    TEST_DEADLINE_MS,
  );

  it(
    'against a mock server with a fault: the answers it changes differ',
    async () => {
      const answers = await replayAgainst(['tool-content-without-type', 'prompt-message-role-system']);
      const differing = answers.filter((answer) => answer.differences.length > 0).map((answer) => answer.subject);
      expect(differing.some((subject) => subject.startsWith('answer to tools/call'))).toBe(true);
      expect(differing.some((subject) => subject.startsWith('answer to prompts/get'))).toBe(true);
      expect(differing.every((subject) => subject.startsWith('answer to tools/call') || subject.startsWith('answer to prompts/get'))).toBe(true);
    },
    TEST_DEADLINE_MS,
  );
});

describe('diff normalisation', () => {
  it('maps values learned earlier, ignores timestamps, reports the rest by JSON pointer', () => {
    const mapping = new Map([['session_a', 'session_b']]);
    expect(diff({ sessionId: 'session_a', at: '2026-01-01T00:00:00Z' }, { sessionId: 'session_b', at: '2026-05-05T10:00:00Z' }, mapping)).toEqual([]);
    expect(diff({ metadata: { createdAt: 1 } }, { metadata: { createdAt: 2 } })).toEqual([]);
    expect(diff({ content: [{ type: 'text', text: 'a' }] }, { content: [{ text: 'a' }] })).toEqual([{ path: '/content/0/type', recorded: 'text', replayed: undefined }]);
    expect(diff({ n: 1 }, { n: '1' })).toEqual([{ path: '/n', recorded: 1, replayed: '1' }]);
  });
});

describe('record files', () => {
  let folder: string;
  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'proxy-record-'));
  });
  afterAll(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  it('a missing file, a line that is not JSON and a line that is no transcript entry are named with their line number', async () => {
    await expect(readRecordFile(join(folder, 'nothing.ndjson'))).rejects.toMatchObject({ code: 'RECORD_FILE', message: expect.stringContaining('ENOENT') });
    const good = JSON.stringify({ seq: 0, at: 1, direction: 'sent', channel: { kind: 'control' }, byteLength: 0, decoded: { jsonrpc: '2.0', id: 0, method: 'ping' }, note: 'session 1' });
    const notJson = join(folder, 'broken.ndjson');
    await writeFile(notJson, `${good}\n\n{"seq": 1,\n`);
    await expect(readRecordFile(notJson)).rejects.toMatchObject({ code: 'RECORD_FILE', line: 3, message: expect.stringContaining('line 3: not JSON') });
    const notEntry = join(folder, 'not-entry.ndjson');
    await writeFile(notEntry, `${good}\n{"seq": 1, "direction": "sideways", "channel": {}}\n`);
    await expect(readRecordFile(notEntry)).rejects.toMatchObject({ line: 2, message: expect.stringContaining('"direction" is "sideways"') });
    const noSession = join(folder, 'no-session.ndjson');
    await writeFile(noSession, `${good.replace('"note":"session 1"', '"note":"hello"')}\n`);
    await expect(readRecordFile(noSession)).rejects.toMatchObject({ line: 1, message: expect.stringContaining('does not name its session') });
    const empty = join(folder, 'empty.ndjson');
    await writeFile(empty, '\n');
    await expect(readRecordFile(empty)).rejects.toMatchObject({ message: expect.stringContaining('holds no proxied session') });
  });
});
