// The `mock-client` command in-process against the mock server (startMockServer): the listing with
// interactive tools marked and the negotiated encoding, a plain tools/call, every shipped wizard
// scripted (--script and --answer, including a refused value), expectations that fail, --download
// with its length verified (and failing when it differs or the stream fails), --log with CBOR shown
// as JSON, the interactive terminal fed from a stream (with Ctrl-C), --driver, and bad input.
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import yargs from 'yargs';
import { main } from '../../src/cli/main.js';
import { mockClientCommand, runMockClient, type MockClientHost } from '../../src/cli/commands/mock-client.js';
import { mockClientFaultCatalog } from '../../src/peer/client/index.js';
import { startMockServer, type RunningMockServer } from '../../src/peer/server/index.js';
import { recordingIo } from '../support/cli.js';
import { stdioMockCommand } from '../suites/support.js';

let wt: RunningMockServer;
let http: RunningMockServer;
let dir: string;

beforeAll(async () => {
  [wt, http] = await Promise.all([startMockServer({ transport: 'wt' }), startMockServer({ transport: 'http' })]);
  dir = mkdtempSync(join(tmpdir(), 'mock-client-cli-'));
});

afterAll(async () => {
  await Promise.all([wt?.close(), http?.close()]);
  rmSync(dir, { recursive: true, force: true });
});

/** A host whose terminal is a pair of streams; `interrupt()` plays Ctrl-C. */
function streamHost(env: Record<string, string | undefined> = {}) {
  const input = new PassThrough();
  const output = new PassThrough();
  let screen = '';
  output.on('data', (chunk: Buffer) => (screen += chunk.toString('utf8')));
  const handlers = new Set<() => void>();
  const host: MockClientHost = {
    input,
    output,
    progress: { write: () => true, isTTY: false },
    env,
    onInterrupt(handler) {
      handlers.add(handler);
      return () => void handlers.delete(handler);
    },
  };
  return { host, input, screen: () => screen, interrupt: () => handlers.forEach((handler) => handler()) };
}

async function cli(args: string[], host = streamHost().host) {
  const io = recordingIo();
  const code = await runMockClient(await parsed(args), io, host);
  return { code, stdout: io.stdout, stderr: io.stderr };
}

/** The arguments as yargs hands them to the command (its own builder, as main.ts registers it). */
async function parsed(args: string[]): Promise<Record<string, unknown>> {
  let captured: Record<string, unknown> | undefined;
  await yargs(['mock-client', ...args])
    .strict()
    .exitProcess(false)
    .fail((message, error) => {
      throw error ?? new Error(message);
    })
    .command(mockClientCommand.command, mockClientCommand.describe, mockClientCommand.builder, (argv) => void (captured = argv as Record<string, unknown>))
    .parseAsync();
  if (captured === undefined) throw new Error(`yargs did not run the command for ${args.join(' ')}`);
  return captured;
}

const wtArgs = () => ['--url', wt.url, '--cert-hash', wt.certificateHash!];

function script(name: string, body: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof body === 'string' ? body : JSON.stringify(body, null, 2));
  return path;
}

const BOOKING = ['Lisbon', '2023-05-01', '2030-06-15', 2, 'first', true, true];
const REGISTRATION = ['Ada', 'ada@example.com', 36, 'pro', 'Analytical Engines', false, null, { theme: 'dark' }];

describe('mock-client: listing and plain tools', () => {
  it('lists tools (interactive ones marked), prompts and resources, and says what was negotiated (wt: cbor)', async () => {
    const { code, stdout } = await cli(wtArgs());
    expect(code).toBe(0);
    expect(stdout).toContain(`connected to ${wt.url} (webtransport)`);
    expect(stdout).toContain('server: mcp-flow-conformance-mock-server');
    expect(stdout).toMatch(/protocol version \d{4}-\d{2}-\d{2}, encoding cbor \(offered cbor, json\)/);
    for (const wizard of ['booking', 'file-export', 'registration']) expect(stdout).toMatch(new RegExp(`^  ${wizard} +\\* `, 'm'));
    expect(stdout).toMatch(/^  echo +  Echo$/m);
    expect(stdout).toContain('(* interactive: MCP Flow)');
    expect(stdout).toMatch(/^prompts \(\d+\):/m);
    expect(stdout).toMatch(/^resources \(\d+\):/m);
  });

  it('Streamable HTTP negotiates json', async () => {
    const { code, stdout } = await cli(['--url', http.url]);
    expect(code).toBe(0);
    expect(stdout).toContain(`connected to ${http.url} (http)`);
    expect(stdout).toMatch(/encoding json\n/);
  });

  it('calls a plain tool with tools/call and prints its text content', async () => {
    const { code, stdout } = await cli([...wtArgs(), '--tool', 'echo', '--args', '{"text":"hello from the CLI"}']);
    expect(code).toBe(0);
    expect(stdout).toContain('tools/call echo\nhello from the CLI\n');
  });

  it('a tool result with isError exits 1 and says so', async () => {
    const { code, stdout } = await cli(['--url', http.url, '--tool', 'fail', '--args', '{"message":"on purpose"}']);
    expect(code).toBe(1);
    expect(stdout).toContain('tool reported an error (isError: true):');
  });

  it('an unknown tool exits 2 naming the closest tools', async () => {
    const { code, stderr } = await cli([...wtArgs(), '--tool', 'bookin']);
    expect(code).toBe(2);
    expect(stderr).toContain('error: --tool: the server has no tool "bookin" (did you mean "booking"');
  });
});

describe('mock-client: scripted wizards', () => {
  it('booking from a --script file, a refused date answered again, over WebTransport', async () => {
    const path = script('booking.json', { tool: 'booking', answers: BOOKING });
    const { code, stdout } = await cli([...wtArgs(), '--script', path]);
    expect(code).toBe(0);
    expect(stdout).toContain('interaction booking (scripted, 7 answers)');
    expect(stdout).toContain('  invalid: Date before 2024-01-01\n  suggestion: Use a date on or after 2024-01-01\n');
    expect(stdout).toContain('completed: Booked first to Lisbon on 2030-06-15 for 2');
    expect(stdout).toContain('"reference": "BK-Lisbon-2030-06-15"');
    expect(stdout).toContain('7 answers sent, 1 refused');
    expect(stdout).toContain('ended completed, as the script expected');
  });

  it('registration with --answer values (JSON or text) over Streamable HTTP', async () => {
    const answers = REGISTRATION.flatMap((value) => ['--answer', typeof value === 'string' ? value : JSON.stringify(value)]);
    const { code, stdout } = await cli(['--url', http.url, '--tool', 'registration', ...answers]);
    expect(code).toBe(0);
    expect(stdout).toContain('completed: Registered Ada <ada@example.com> on the pro plan');
    expect(stdout).toContain('"company": "Analytical Engines"');
  });

  it('file-export over stdio (--stdio runs the mock server), the file inline', async () => {
    const path = script('export.json', { tool: 'file-export', answers: [3, 'rows', true] });
    const { code, stdout } = await cli(['--stdio', stdioMockCommand(), '--script', path]);
    expect(code).toBe(0);
    expect(stdout).toContain('connected to stdio command');
    expect(stdout).toContain('completed: Exported 3 rows to rows.csv');
  }, 180_000);

  it('"$cancel" with expect "cancelled" exits 0; the same run expecting completion exits 1 saying why', async () => {
    const cancelled = script('cancel.json', { tool: 'booking', answers: ['Lisbon', '$cancel'], expect: 'cancelled' });
    const ok = await cli([...wtArgs(), '--script', cancelled]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain('ended cancelled, as the script expected');
    const wrong = await cli([...wtArgs(), '--tool', 'booking', '--answer', 'Lisbon', '--answer', '$cancel']);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('error: the script expected the flow to end completed, but it ended cancelled');
  });

  it('answers that run out: exit 1 naming the prompt left unanswered', async () => {
    const { code, stderr } = await cli([...wtArgs(), '--tool', 'booking', '--answer', 'Lisbon']);
    expect(code).toBe(1);
    expect(stderr).toMatch(/expected the flow to end completed, but it ended error: .*no answer left for prompt "Departure date for Lisbon:"/);
  });

  it('a plain tool can be scripted too: expect "error" matches a tool error', async () => {
    const path = script('fail.json', { tool: 'fail', answers: [], expect: 'error' });
    const { code, stdout } = await cli(['--url', http.url, '--script', path]);
    expect(code).toBe(0);
    expect(stdout).toContain('ended error, as the script expected');
  });
});

describe('mock-client --download', () => {
  it('writes the execution stream to the file and verifies the length', async () => {
    const file = join(dir, 'download.bin');
    const { code, stdout } = await cli([...wtArgs(), '--tool', 'download', '--args', '{"bytes":200000}', '--download', file, '--expect-bytes', '200000']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/downloaded 200000 bytes from execution stream 1 of request \d+ to .*download\.bin \(length verified\)/);
    const bytes = readFileSync(file);
    expect(bytes.length).toBe(200000);
    expect(bytes.every((byte, index) => byte === index % 256)).toBe(true);
  });

  it('a length that differs fails and removes the file', async () => {
    const file = join(dir, 'short.bin');
    const { code, stderr } = await cli([...wtArgs(), '--tool', 'download', '--args', '{"bytes":1000}', '--download', file, '--expect-bytes', '1001']);
    expect(code).toBe(1);
    expect(stderr).toContain('1000 bytes received, 1001 expected (length differs)');
    expect(existsSync(file)).toBe(false);
  });

  it('a stream reset and reported by $/streamError fails clearly', async () => {
    const file = join(dir, 'broken.bin');
    const { code, stderr } = await cli([...wtArgs(), '--tool', 'download', '--args', '{"bytes":300000,"failAfterBytes":1000}', '--download', file]);
    expect(code).toBe(1);
    expect(stderr).toMatch(/download failed: execution stream 1 of request \d+ .*\$\/streamError: the source failed after 1000 bytes/);
    expect(existsSync(file)).toBe(false);
  });

  it('file-export over WebTransport: the CSV from the execution stream, length checked against interaction.complete', async () => {
    const file = join(dir, 'export.csv');
    const { code, stdout } = await cli([...wtArgs(), '--tool', 'file-export', '--answer', '3', '--answer', 'people', '--answer', 'true', '--download', file]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/downloaded \d+ bytes from execution stream 1 of request \d+ to .*export\.csv \(length verified\)/);
    expect(readFileSync(file, 'utf8')).toBe('id,value\n1,value-1\n2,value-2\n3,value-3\n');
  });

  it('over Streamable HTTP the inline resource is written', async () => {
    const file = join(dir, 'inline.bin');
    const { code, stdout } = await cli(['--url', http.url, '--tool', 'download', '--args', '{"bytes":5000}', '--download', file, '--expect-bytes', '5000']);
    expect(code).toBe(0);
    expect(stdout).toContain('(no execution stream)');
    expect(readFileSync(file).length).toBe(5000);
  });
});

describe('mock-client --log', () => {
  it('prints every frame on stderr, CBOR decoded and shown as JSON', async () => {
    const { code, stderr } = await cli([...wtArgs(), '--tool', 'echo', '--args', '{"text":"logged"}', '--log']);
    expect(code).toBe(0);
    expect(stderr).toMatch(/-> control \[json\] request initialize id=0 \{"jsonrpc":"2\.0"/);
    expect(stderr).toMatch(/-> control \[cbor\] request tools\/call id=\d+ .*"name":"echo","arguments":\{"text":"logged"\}/);
    expect(stderr).toMatch(/<- control \[cbor\] response id=\d+ .*"text":"logged"/);
  });
});

describe('mock-client in the terminal (streams standing in for it)', () => {
  it('renders each prompt, shows the refusal, takes a choice by number and prints the result', async () => {
    const { host, input, screen } = streamHost();
    input.write(['Lisbon', '2023-05-01', '2030-06-15', '', '2', 'y', ''].join('\n'));
    const { code, stdout } = await cli([...wtArgs(), '--tool', 'booking'], host);
    expect(code).toBe(0);
    expect(screen()).toContain('Enter destination: (e.g. Lisbon; 2 to 50 characters) Lisbon\n');
    expect(screen()).toContain('invalid: Date before 2024-01-01\nsuggestion: Use a date on or after 2024-01-01\n');
    expect(screen()).toContain('How many travellers? (1 to 9) [1] \n');
    expect(screen()).toContain('  2) Business (business)\n');
    expect(screen()).toMatch(/\[#+-*\] \d\/\d Step 2: date\n/);
    expect(screen()).toContain('Checking availability for Lisbon\n');
    expect(stdout).toContain('completed: Booked business to Lisbon on 2030-06-15 for 1');
  });

  it('Ctrl-C at a prompt sends interaction.cancel and exits 130 once it was answered', async () => {
    const { host, input, screen, interrupt } = streamHost();
    input.write('Lisbon\n');
    const io = recordingIo();
    const running = runMockClient(await parsed([...wtArgs(), '--tool', 'booking', '--log']), io, host);
    await until(() => screen().includes('Departure date'));
    interrupt();
    expect(await running).toBe(130);
    expect(io.stderr).toContain('cancelling (Ctrl-C again to quit at once)');
    // The listing's probes cancel one session per interactive tool; the last cancel is the user's.
    const cancels = [...io.stderr.matchAll(/-> control \[cbor\] request interaction\.cancel id=(\d+) /g)];
    expect(cancels).toHaveLength(wt.wizards.length + 1);
    const id = cancels.at(-1)![1];
    expect(io.stderr).toMatch(new RegExp(`<- control \\[cbor\\] response id=${id} .*"cancelled":true`));
    expect(io.stdout).toMatch(/^cancelled$/m);
  });

  it('Ctrl-C during a plain tools/call sends $/cancel and exits 130', async () => {
    const { host, interrupt } = streamHost();
    const io = recordingIo();
    const running = runMockClient(await parsed([...wtArgs(), '--tool', 'slow', '--args', '{"steps":1000,"stepMs":50}', '--log']), io, host);
    await until(() => io.stdout.includes('1/1000 step 1 of 1000'));
    interrupt();
    expect(await running).toBe(130);
    expect(io.stderr).toMatch(/-> control \[cbor\] notification \$\/cancel .*"requestId":\d+/);
  });

  it('input that ends before the flow does: exit 1 naming the unanswered prompt', async () => {
    const { host, input } = streamHost();
    input.end('Lisbon\n');
    const { code, stdout } = await cli([...wtArgs(), '--tool', 'booking'], host);
    expect(code).toBe(1);
    expect(stdout).toContain('standard input ended before the prompt "Departure date for Lisbon:" was answered');
  });
});

describe('mock-client --driver and --list-faults', () => {
  it('--driver runs MCP_FLOW_SCENARIO against the URL given last and exits with its code', async () => {
    const ok = await cli(['--driver', http.url], streamHost({ MCP_FLOW_SCENARIO: 'initialize', MCP_FLOW_TRANSPORT: 'http' }).host);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/scenario initialize: ok \(exit 0\)/);
    const failing = await cli(['--driver', '--fault', 'ping-unanswered', wt.url], streamHost({ MCP_FLOW_SCENARIO: 'tools-call', MCP_FLOW_CONTEXT: '{"tool":"fail","arguments":{}}', MCP_FLOW_CERT_HASH: wt.certificateHash! }).host);
    expect(failing.code).toBe(1);
    expect(failing.stdout).toMatch(/FAIL tools\/call 1/);
  });

  it('--driver without MCP_FLOW_SCENARIO exits 2 saying so', async () => {
    const { code, stderr } = await cli(['--driver', http.url], streamHost({}).host);
    expect(code).toBe(2);
    expect(stderr).toContain('MCP_FLOW_SCENARIO is not set');
  });

  it('--list-faults (through main: the command is registered) prints every client fault with its requirement', async () => {
    const io = recordingIo();
    expect(await main(['mock-client', '--list-faults'], io)).toBe(0);
    const lines = io.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(mockClientFaultCatalog().length);
    for (const [index, entry] of mockClientFaultCatalog().entries()) expect(lines[index]).toMatch(new RegExp(`^${entry.name} +${entry.requirement} `));
  });
});

describe('mock-client bad input (exit 2, one line naming what was wrong)', () => {
  it.each([
    [[], /name the server with --url URL .* or --stdio "command"/],
    [['--url', 'http://127.0.0.1:9/mcp', '--stdio', 'x'], /--stdio: give either --url or --stdio, not both/],
    [['--url', 'http://127.0.0.1:9/mcp', 'http://127.0.0.1:8/mcp'], /--url: given as http:\/\/127\.0\.0\.1:9\/mcp and as the argument http:\/\/127\.0\.0\.1:8\/mcp; give one/],
    [['--url', 'ftp://example.com'], /--url: ftp:\/\/example.com must start with https:\/\/ \(WebTransport\) or http:\/\//],
    [['--url', 'http://127.0.0.1:9/mcp', '--cert-hash', 'ab'], /--cert-hash: applies to a WebTransport \(https:\/\/\) URL only/],
    [['--url', 'https://127.0.0.1:9/mcp', '--cert-hash', 'xyz'], /--cert-hash: /],
    [['--url', 'https://127.0.0.1:9/mcp', '--ca', '/nonexistent/ca.pem'], /--ca: cannot read \/nonexistent\/ca\.pem: ENOENT/],
    [['--url', 'http://127.0.0.1:9/mcp', '--tool', 'echo', '--args', '{"text": hi}'], /--args: not valid JSON: unexpected "h" at line 1 column 10 \(offset 9/],
    [['--url', 'http://127.0.0.1:9/mcp', '--tool', 'echo', '--args', '[1]'], /--args: must be a JSON object/],
    [['--url', 'http://127.0.0.1:9/mcp', '--answer', 'x'], /--answer: name the tool to answer with --tool/],
    [['--url', 'http://127.0.0.1:9/mcp', '--tool', 'echo', '--expect-bytes', '3'], /--expect-bytes: checks a --download/],
    [['--url', 'http://127.0.0.1:9/mcp', '--fault', 'ping-unanswerd'], /--fault: unknown mock-client fault "ping-unanswerd" \(did you mean "ping-unanswered"/],
  ])('%j', async (args, message) => {
    const { code, stderr, stdout } = await cli(args as string[]);
    expect(code).toBe(2);
    expect(stderr).toMatch(message);
    expect(stdout).toBe('');
  });

  it('a --script that is not JSON names the line and column', async () => {
    const path = script('broken.json', '{\n  "tool": "booking",\n  "answers": ["Lisbon",, 2]\n}\n');
    const { code, stderr } = await cli(['--url', http.url, '--script', path]);
    expect(code).toBe(2);
    expect(stderr).toContain(`--script ${path}: not valid JSON: unexpected "," at line 3 column 24`);
  });

  it.each([
    [{ tool: 'booking' }, /"answers" must be an array/],
    [{ tool: 'booking', answers: [], expect: 'done' }, /"expect" must be one of completed, cancelled, error, got "done"/],
    [{ tool: 'booking', answers: [], answer: [] }, /unknown member "answer"/],
  ])('a --script %j is refused', async (body, message) => {
    const { code, stderr } = await cli(['--url', http.url, '--script', script('bad-script.json', body)]);
    expect(code).toBe(2);
    expect(stderr).toMatch(message);
  });

  it('an unreachable URL exits 2 saying it cannot be reached', async () => {
    const { code, stderr } = await cli(['--url', 'http://127.0.0.1:9/mcp']);
    expect(code).toBe(2);
    expect(stderr).toMatch(/error: cannot reach http:\/\/127\.0\.0\.1:9\/mcp: .*ECONNREFUSED/);
  });

  it('a --stdio command that exits is named with its exit code and stderr', async () => {
    const { code, stderr } = await cli(['--stdio', `${JSON.stringify(process.execPath)} -e "console.error('no server here'); process.exit(3)"`]);
    expect(code).toBe(2);
    expect(stderr).toContain('exited with code 3 before answering initialize; its last stderr lines:\n  no server here');
  }, 180_000);
});

/** Polls `condition` (no timing assertion: a generous liveness deadline only). */
async function until(condition: () => boolean, deadlineMs = 30_000): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (!condition()) {
    if (Date.now() > end) throw new Error('the expected output did not appear');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
