// The `replay` command: a record made through the proxy replays against a fresh mock server with
// no difference (exit 0) and against a faulty one with a diff per differing answer (exit 1); bad
// input exits 2 naming the problem (a record line by its number).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { startMockServer, type RunningMockServer } from '../../src/peer/server/index.js';
import { cliArgs, recordingIo } from '../support/cli.js';
import { runSdkSession, startPair } from '../peer/proxy/support.js';

const TEST_DEADLINE_MS = 120_000;

let folder: string;
let record: string;
let fresh: RunningMockServer;
let faulty: RunningMockServer;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'cli-replay-'));
  record = join(folder, 'session.ndjson');
  const pair = await startPair('http');
  try {
    const outcome = await runSdkSession('http', pair.proxy.url, undefined);
    expect(outcome.failures).toEqual([]);
    await pair.proxy.close();
    await pair.proxy.record.transcript.writeNdjson(record);
  } finally {
    await pair.close();
  }
  fresh = await startMockServer({ transport: 'http', port: 0, fastworkflow: false });
  faulty = await startMockServer({ transport: 'http', port: 0, fastworkflow: false, faults: ['resource-without-name'] });
}, TEST_DEADLINE_MS);

afterAll(async () => {
  await fresh?.close();
  await faulty?.close();
  if (folder) await rm(folder, { recursive: true, force: true });
});

async function replay(...args: string[]) {
  const io = recordingIo();
  const code = await main(['replay', ...args], io);
  return { code, io };
}

describe('replay', () => {
  it(
    'against a fresh mock server: every answer the same, exit 0',
    async () => {
      const { code, io } = await replay('--record', record, '--url', fresh.url);
      expect(io.stderr).toBe('');
      expect(code).toBe(0);
      expect(io.stdout).toMatch(/^replaying 1 session\(s\) of .* against http:\/\/127\.0\.0\.1:\d+\/mcp \(http\)$/m);
      expect(io.stdout).toMatch(/^ {2}same {4}session 1 answer to initialize 0$/m);
      expect(io.stdout).toMatch(/^no difference in \d+ answer\(s\)$/m);
    },
    TEST_DEADLINE_MS,
  );

  it(
    'against a faulty mock server: the differing answer with its path, exit 1',
    async () => {
      const { code, io } = await replay('--record', record, '--url', faulty.url);
      expect(code).toBe(1);
      expect(io.stdout).toMatch(/^ {2}DIFFERS session 1 answer to resources\/list \d+\n {6}\/result\/resources\/0\/name: "[^"]+" -> \(missing\)/m);
      expect(io.stdout).toMatch(/^1 of \d+ answer\(s\) differ$/m);
    },
    TEST_DEADLINE_MS,
  );

  it(
    'against the mock server on stdio (--stdio): a record made over Streamable HTTP replays the same',
    async () => {
      const command = [process.execPath, ...cliArgs('mock-server', '--transport', 'stdio')].map((word) => JSON.stringify(word)).join(' ');
      const { code, io } = await replay('--record', record, '--stdio', command);
      expect(io.stdout).toMatch(/^no difference in \d+ answer\(s\)$/m);
      expect(code).toBe(0);
    },
    TEST_DEADLINE_MS,
  );

  it.each([
    [[], /--record: name the record file/],
    [['--record', 'x.ndjson'], /--url: name the server with --url URL or --stdio "command"/],
    [['--record', 'x.ndjson', '--url', 'http://127.0.0.1:9/mcp', '--timeout', '-5'], /--timeout: must be a positive number/],
    [['--record', '/nonexistent/x.ndjson', '--url', 'http://127.0.0.1:9/mcp'], /record file \/nonexistent\/x\.ndjson: cannot read it: ENOENT/],
  ])('%j exits 2 naming the problem', async (args, message) => {
    const { code, io } = await replay(...args);
    expect(code).toBe(2);
    expect(io.stderr).toMatch(message);
  });

  it('a server nothing listens on exits 2 naming it', async () => {
    const { code, io } = await replay('--record', record, '--url', 'http://127.0.0.1:9/mcp');
    expect(code).toBe(2);
    expect(io.stderr).toContain('error: upstream http://127.0.0.1:9/mcp (http): cannot connect to 127.0.0.1:9: ECONNREFUSED');
  });

  it('an unreadable record line exits 2 with its line number', async () => {
    const broken = join(folder, 'broken.ndjson');
    await writeFile(broken, '{"seq":0,"at":1,"direction":"sent","channel":{"kind":"control"},"byteLength":0,"note":"session 1"}\nnot json\n');
    const { code, io } = await replay('--record', broken, '--url', fresh.url);
    expect(code).toBe(2);
    expect(io.stderr).toMatch(new RegExp(`record file ${broken.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} line 2: not JSON`));
  });
});
