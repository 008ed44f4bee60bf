// The `server` command in-process: option errors (one line naming the option, exit 2), --list,
// exit codes 0/1/2 from small registries against the mock server on each transport, --strict,
// --baseline, the reports it writes, and the counts line last.
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { listCases, parseServerArgs, runServer } from '../../src/cli/commands/server.js';
import { CaseRegistry, defineCase, type ConformanceCase } from '../../src/harness/index.js';
import { startMockServer, type RunningMockServer } from '../../src/peer/server/index.js';
import { parseJsonReport } from '../../src/report/index.js';
import { serverRegistry } from '../../suites/server/index.js';
import { openSession } from '../../suites/support/session.js';
import { recordingIo } from '../support/cli.js';
import { stdioMockCommand } from '../suites/support.js';

const COUNTS_LINE = /^\d+ passed, \d+ failed, \d+ skipped, \d+ warned, \d+ not applicable, \d+ timed out, \d+ errors, \d+ info$/;

function lastLine(text: string): string {
  return text.trimEnd().split('\n').at(-1) ?? '';
}

async function cli(...args: string[]) {
  const io = recordingIo();
  const code = await main(['server', ...args], io);
  return { code, stdout: io.stdout, stderr: io.stderr };
}

const ping = defineCase({
  id: 'cli/ping',
  suite: 'cli',
  title: 'ping is answered with {}',
  requirements: ['CORE-LIFE-12'],
  async run(ctx) {
    await openSession(ctx);
    const answer = await ctx.request('CORE-LIFE-12', 'ping');
    if (answer) ctx.check('CORE-LIFE-12', JSON.stringify(answer.result) === '{}', { message: 'ping result is {}', actual: answer.result });
  },
});

/** A broken SHOULD: WARN, a failure only under --strict. */
const warns = defineCase({
  id: 'cli/warns',
  suite: 'cli',
  title: 'a SHOULD the test breaks on purpose',
  requirements: ['CORE-LIFE-8'],
  async run(ctx) {
    ctx.check('CORE-LIFE-8', false, { message: 'broken on purpose', expected: 'x', actual: 'y' });
  },
});

/** A broken MUST: FAIL. */
const fails = defineCase({
  id: 'cli/fails',
  suite: 'other',
  title: 'a MUST the test breaks on purpose',
  requirements: ['CORE-LIFE-3'],
  async run(ctx) {
    ctx.check('CORE-LIFE-3', false, { message: 'broken on purpose', expected: 'x', actual: 'y' });
  },
});

function registryOf(...cases: ConformanceCase[]): CaseRegistry {
  const registry = new CaseRegistry();
  registry.registerAll(cases);
  return registry;
}

async function runWith(registry: CaseRegistry, ...args: string[]) {
  const io = recordingIo();
  const code = await runServer(parseArgv(args), io, { registry });
  return { code, stdout: io.stdout, stderr: io.stderr };
}

/** The few yargs conversions these tests rely on (kebab-case keys, repeatable options as arrays). */
function parseArgv(args: string[]): Record<string, unknown> {
  const parsed: Record<string, unknown> = {};
  const repeatable = new Set(['suite', 'case', 'exclude', 'header', 'interactive-tool']);
  for (let i = 0; i < args.length; i++) {
    const name = args[i]!.replace(/^--/, '');
    const next = args[i + 1];
    if (next === undefined || next.startsWith('--')) {
      parsed[name] = true;
      continue;
    }
    i++;
    parsed[name] = repeatable.has(name) ? [...((parsed[name] as string[] | undefined) ?? []), next] : next;
  }
  return parsed;
}

describe('server: usage errors exit 2 with one line naming the option', () => {
  const cases: [string[], RegExp][] = [
    [[], /--url URL or --stdio/],
    [['--url', 'ftp://example.org/x'], /^error: --url: /],
    [['--url', 'not a url'], /^error: --url: "not a url" is not a URL/],
    [['--url', 'https://a/x', '--stdio', 'node x.js'], /^error: --stdio: give either --url or --stdio/],
    [['--url', 'http://a/mcp', '--transport', 'webtransport'], /^error: --url: WebTransport needs an https: URL/],
    [['--url', 'https://a/mcp', '--transport', 'carrier'], /^error: --transport: /],
    [['--url', 'https://a/mcp', '--header', 'Authorization: x'], /^error: --header: the WebTransport client cannot add headers/],
    [['--url', 'http://a/mcp', '--header', 'no colon here'], /^error: --header: "no colon here" is not of the form/],
    [['--url', 'http://a/mcp', '--header', 'A: 1', '--header', 'a: 2'], /^error: --header: a is given twice/],
    [['--url', 'https://a/mcp', '--certificate-hash', 'abc'], /^error: --certificate-hash: .*64 hex digits/],
    [['--url', 'http://a/mcp', '--certificate-hash', 'ab'.repeat(32)], /^error: --certificate-hash: pins a WebTransport/],
    [['--url', 'https://a/mcp', '--ca', '/no/such/ca.pem'], /^error: --ca: cannot read \/no\/such\/ca.pem/],
    [['--stdio', 'node "unterminated'], /^error: --stdio: .*unterminated/],
    [['--stdio', 'node x.js', '--transport', 'http'], /^error: --transport: applies to --url only/],
    [['--url', 'http://a/mcp', '--workers', '0'], /^error: --workers: must be an integer from 1 to 256/],
    [['--url', 'http://a/mcp', '--workers', 'many'], /^error: --workers: /],
    [['--url', 'http://a/mcp', '--timeout-scale', '-1'], /^error: --timeout-scale: must be a positive number/],
    [['--url', 'http://a/mcp', '--timeout-scale', 'abc'], /^error: --timeout-scale: must be a positive number \(e\.g\. 2\.5\), got something else/],
    [['--url', 'http://a/mcp', '--shard', '3/2'], /^error: --shard: "3\/2" is not of the form i\/n/],
    [['--url', 'http://a/mcp', '--seed', '1.5'], /^error: --seed: must be an integer/],
    [['--url', 'http://a/mcp', '--kept-message-bytes', '-1'], /^error: --kept-message-bytes: must be a whole number of bytes \(0 or more\)/],
    [['--url', 'http://a/mcp', '--path', '0:1'], /^error: --path: .*needs --seed/],
    [['--url', 'http://a/mcp', '--protocol-version', '1999-01-01'], /^error: --protocol-version: "1999-01-01" is not a protocol version/],
    [['--url', 'http://a/mcp', '--suite', 'no-such-suite'], /^error: --suite: unknown suite "no-such-suite"/],
    [['--url', 'http://a/mcp', '--case', 'no-such/*'], /^error: no case matches the filters/],
    [['--url', 'http://a/mcp', '--baseline', '/no/such/baseline.json'], /^error: \/no\/such\/baseline.json: cannot read the file/],
  ];
  for (const [args, message] of cases) {
    it(args.join(' ') || '(no target)', async () => {
      const { code, stdout, stderr } = await cli(...args);
      expect(code).toBe(2);
      expect(stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(stderr).toMatch(message);
      expect(stdout).toBe('');
    });
  }

  it('--cert-hash is another name for --certificate-hash', async () => {
    const { code, stderr } = await cli('--url', 'https://a/mcp', '--cert-hash', 'xyz');
    expect(code).toBe(2);
    expect(stderr).toMatch(/^error: --certificate-hash: .*64 hex digits/);
  });

  it('an unknown option is refused by the parser', async () => {
    const { code, stderr } = await cli('--url', 'http://a/mcp', '--no-such-option');
    expect(code).toBe(2);
    expect(stderr).toMatch(/Unknown argument/);
  });
});

describe('server --list', () => {
  it('lists every server case with its suite and requirement IDs, without a target', async () => {
    const { code, stdout } = await cli('--list');
    expect(code).toBe(0);
    const registry = serverRegistry();
    const lines = stdout.trimEnd().split('\n');
    expect(lines.at(-1)).toBe(`${registry.size} case(s) of ${registry.size}`);
    for (const c of registry.list()) {
      expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^${c.id.replace(/[.]/g, '\\.')} +${c.suite} +${c.requirements.join(',')}  `)));
    }
  });

  it('honours the filters, and exits 2 when they select nothing', () => {
    const registry = registryOf(ping, warns, fails);
    const text = listCases(registry, parseServerArgs({ list: true, suite: ['cli'], exclude: ['cli/warns'] }).filters);
    expect(text.split('\n')).toEqual([`cli/ping  cli  CORE-LIFE-12  ${ping.title}`, '1 case(s) of 3']);
    expect(() => listCases(registry, parseServerArgs({ list: true, case: ['zzz/*'] }).filters)).toThrow(/no case matches/);
  });

  it('--list --json FILE writes the selected cases as JSON; --list --json - prints only that JSON', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'server-list-'));
    try {
      const file = join(dir, 'nested', 'cases.json');
      const written = await cli('--list', '--suite', 'mcp-core', '--json', file);
      expect(written.code).toBe(0);
      expect(written.stdout).toBe(`case list: ${file}\n`);
      const list = JSON.parse(readFileSync(file, 'utf8')) as { format: string; registered: number; cases: { id: string; suite: string; requirements: string[]; level: string }[] };
      const registry = serverRegistry();
      expect(list.format).toBe('mcp-flow-conformance/case-list');
      expect(list.registered).toBe(registry.size);
      expect(list.cases.map((c) => c.id)).toEqual(registry.list().filter((c) => c.suite === 'mcp-core').map((c) => c.id));
      expect(list.cases[0]).toMatchObject({ suite: 'mcp-core', requirements: expect.any(Array), level: expect.stringMatching(/^(MUST|SHOULD|MAY|INFO)$/) });
      const printed = await cli('--list', '--suite', 'mcp-core', '--json', '-');
      expect(printed.code).toBe(0);
      expect(JSON.parse(printed.stdout)).toEqual(list);
      const refused = await cli('--list', '--junit', join(dir, 'x.xml'));
      expect(refused.code).toBe(2);
      expect(refused.stderr).toBe('error: --junit: has no meaning with --list (the list is written as JSON with --json FILE or --json -)\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('splits comma-separated suites and reads --reports as a path per format, explicit paths winning', () => {
    const plan = parseServerArgs({ url: 'http://a/mcp', suite: ['a,b', 'c'], reports: 'out', json: 'elsewhere.json' });
    expect(plan.filters.suites).toEqual(['a', 'b', 'c']);
    expect(plan.reports).toEqual({ junit: join('out', 'junit.xml'), json: 'elsewhere.json', html: join('out', 'report.html'), markdown: join('out', 'summary.md') });
    expect(plan.target).toMatchObject({ transport: 'http', rerunArgs: ['--url', 'http://a/mcp'] });
    expect(parseServerArgs({ url: 'https://a/mcp', transport: 'http', header: ['Authorization: Bearer t'] }).target).toMatchObject({
      transport: 'http',
      headers: { Authorization: 'Bearer t' },
      rerunArgs: ['--url', 'https://a/mcp', '--transport', 'http'],
    });
  });
});

describe('server against the mock server over Streamable HTTP', () => {
  let server: RunningMockServer;
  let dir: string;
  beforeAll(async () => {
    server = await startMockServer({ transport: 'http', host: '127.0.0.1', port: 0 });
    dir = mkdtempSync(join(tmpdir(), 'server-cli-'));
  });
  afterAll(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('exit 0 when every case passes, live progress per suite, reports written, counts line last', async () => {
    const reports = join(dir, 'passing');
    const { code, stdout, stderr } = await runWith(registryOf(ping), '--url', server.url, '--reports', reports);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const lines = stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(`testing ${server.url} over http`);
    expect(lines).toContain('cli');
    expect(lines).toContainEqual(expect.stringMatching(/^ {2}\[1\/1\] ✓ PASS {2}cli\/ping {2}ping is answered/));
    expect(lastLine(stdout)).toBe('1 passed, 0 failed, 0 skipped, 0 warned, 0 not applicable, 0 timed out, 0 errors, 0 info');
    for (const file of ['junit.xml', 'report.json', 'report.html']) expect(existsSync(join(reports, file))).toBe(true);
    expect(stdout).toContain(`json report: ${join(reports, 'report.json')}`);
    const json = parseJsonReport(readFileSync(join(reports, 'report.json'), 'utf8'));
    expect(json.cases.map((c) => [c.id, c.verdict])).toEqual([['cli/ping', 'PASS']]);
    expect(readFileSync(join(reports, 'junit.xml'), 'utf8')).toContain('name="cli/ping"');
  });

  it('exit 1 on a failed MUST, with the failure explained and a rerun command for the same target', async () => {
    const { code, stdout } = await runWith(registryOf(ping, fails), '--url', server.url, '--workers', '1');
    expect(code).toBe(1);
    expect(stdout).toContain('✗ FAIL cli/fails');
    expect(stdout).toContain(`rerun: mcp-flow-conformance server --url ${server.url} --case cli/fails`);
    expect(lastLine(stdout)).toBe('1 passed, 1 failed, 0 skipped, 0 warned, 0 not applicable, 0 timed out, 0 errors, 0 info');
  });

  it('a WARN passes the run; --strict makes it fail', async () => {
    expect((await runWith(registryOf(ping, warns), '--url', server.url)).code).toBe(0);
    const strict = await runWith(registryOf(ping, warns), '--url', server.url, '--strict');
    expect(strict.code).toBe(1);
    expect(strict.stdout.split('\n')[0]).toBe(`testing ${server.url} over http (strict: warnings fail)`);
  });

  it('a baseline listing the failing case gates on regressions only', async () => {
    const baseline = join(dir, 'baseline.json');
    writeFileSync(baseline, JSON.stringify({ version: 1, expectedFailures: { 'cli/fails': 'known bug #12' } }));
    const { code, stdout } = await runWith(registryOf(ping, fails), '--url', server.url, '--baseline', baseline);
    expect(code).toBe(0);
    expect(stdout).toContain('[expected failure]');
  });

  it('--suite, --case and --exclude select; cases left out are counted, not reported', async () => {
    const { code, stdout } = await runWith(registryOf(ping, warns, fails), '--url', server.url, '--suite', 'cli', '--exclude', 'cli/warns');
    expect(code).toBe(0);
    expect(stdout).toMatch(/\n1 cases in .*, 2 not selected \(--suite cli --exclude cli\/warns\), exit code 0\n/);
    expect(lastLine(stdout)).toBe('1 passed, 0 failed, 0 skipped, 0 warned, 0 not applicable, 0 timed out, 0 errors, 0 info');
  });

  it('sharded JUnit reports list only their own cases, so the merged shards count each case once', async () => {
    const registry = registryOf(ping, { ...ping, id: 'cli/ping-2' }, { ...ping, id: 'cli/ping-3' }, { ...ping, id: 'cli/ping-4' }, fails);
    const names: string[] = [];
    for (const shard of ['1/2', '2/2']) {
      const junit = join(dir, `shard-${shard.replace('/', '-')}.xml`);
      const json = join(dir, `shard-${shard.replace('/', '-')}.json`);
      await runWith(registry, '--url', server.url, '--shard', shard, '--junit', junit, '--json', json);
      const xml = readFileSync(junit, 'utf8');
      names.push(...[...xml.matchAll(/<testcase classname="[^"]*" name="([^"]*)"/g)].map((match) => match[1]!));
      const report = parseJsonReport(readFileSync(json, 'utf8'));
      expect(report.cases.length + report.notSelected!).toBe(registry.size);
      expect(xml).toContain(`<property name="notSelected" value="${report.notSelected} not selected (--shard ${shard})"/>`);
    }
    expect(names.sort()).toEqual(registry.list().map((c) => c.id).sort());
  });

  it('--fail-on-stale: a baseline entry whose case now passes fails the run; without it, the run passes and says so', async () => {
    const baseline = join(dir, 'stale-baseline.json');
    writeFileSync(baseline, JSON.stringify({ version: 1, expectedFailures: { 'cli/ping': 'was broken', 'cli/fails': 'known bug #12' } }));
    const relaxed = await runWith(registryOf(ping, fails), '--url', server.url, '--baseline', baseline);
    expect(relaxed.code).toBe(0);
    expect(lastLine(relaxed.stdout)).toBe('1 passed, 1 failed, 0 skipped, 0 warned, 0 not applicable, 0 timed out, 0 errors, 0 info, 1 expected failure, 1 stale');
    expect(relaxed.stdout).toContain('Stale baseline entries (1; these cases now pass: remove them, or use --fail-on-stale to fail on them)');
    const strict = await runWith(registryOf(ping, fails), '--url', server.url, '--baseline', baseline, '--fail-on-stale');
    expect(strict.code).toBe(1);
    expect(strict.stdout).toContain('they fail the run (--fail-on-stale)');
    const usage = await cli('--url', server.url, '--fail-on-stale');
    expect(usage.code).toBe(2);
    expect(usage.stderr).toBe('error: --fail-on-stale: needs --baseline (it fails the run on the stale entries of a baseline)\n');
  });

  it('runs the real server suites through main (filtered), ending with the counts line', async () => {
    const suite = serverRegistry().suites()[0]!;
    const { code, stdout } = await cli('--url', server.url, '--suite', suite, '--shard', '1/4');
    expect([0, 1]).toContain(code);
    expect(lastLine(stdout)).toMatch(COUNTS_LINE);
  });

  it('--json - writes the JSON report to standard output and everything else to standard error', async () => {
    const { code, stdout, stderr } = await runWith(registryOf(ping, fails), '--url', server.url, '--json', '-', '--junit', join(dir, 'with-stdout.xml'));
    expect(code).toBe(1);
    const report = parseJsonReport(stdout);
    expect(report.cases.map((c) => [c.id, c.verdict])).toEqual([['cli/ping', 'PASS'], ['cli/fails', 'FAIL']]);
    expect(stderr).toContain(`testing ${server.url} over http`);
    expect(stderr).toContain(`junit report: ${join(dir, 'with-stdout.xml')}`);
    expect(lastLine(stderr)).toBe('1 passed, 1 failed, 0 skipped, 0 warned, 0 not applicable, 0 timed out, 0 errors, 0 info');
    const two = await cli('--url', server.url, '--json', '-', '--html', '-');
    expect(two.code).toBe(2);
    expect(two.stderr).toBe('error: --html: only one report can go to standard output ("-"); --json already does\n');
  });

  it('FORCE_COLOR colours the console output even without a terminal (CI logs); NO_COLOR and FORCE_COLOR=0 keep it plain', async () => {
    for (const [env, coloured] of [[{ FORCE_COLOR: '1' }, true], [{ FORCE_COLOR: '1', NO_COLOR: '1' }, true], [{ NO_COLOR: '1' }, false], [{ FORCE_COLOR: '0' }, false], [{}, false]] as const) {
      const io = Object.assign(recordingIo(), { env });
      await runServer(parseArgv(['--url', server.url]), io, { registry: registryOf(ping) });
      expect(/\u001b\[\d+m/.test(io.stdout), JSON.stringify(env)).toBe(coloured);
    }
  });

  it('a report path that cannot be written exits 2 naming it, after the run is shown', async () => {
    const blocker = join(dir, 'a-file');
    writeFileSync(blocker, 'not a folder');
    const { code, stdout, stderr } = await runWith(registryOf(ping), '--url', server.url, '--json', join(blocker, 'report.json'));
    expect(code).toBe(2);
    expect(stderr).toMatch(/^error: cannot write the json report to /);
    expect(lastLine(stdout)).toMatch(COUNTS_LINE);
  });
});

describe('server against the mock server over WebTransport and stdio', () => {
  it('WebTransport with a pinned certificate hash', async () => {
    const server = await startMockServer({ transport: 'wt', host: '127.0.0.1', port: 0 });
    try {
      const { code, stdout } = await runWith(registryOf(ping), '--url', server.url, '--certificate-hash', server.certificateHash!);
      expect(code).toBe(0);
      expect(stdout.split('\n')[0]).toBe(`testing ${server.url} over webtransport`);
      expect(lastLine(stdout)).toMatch(/^1 passed, 0 failed/);
    } finally {
      await server.close();
    }
  });

  it('WebTransport without the hash or a CA: exit 2, one line that says the certificate is not trusted and what to pass', async () => {
    const server = await startMockServer({ transport: 'wt', host: '127.0.0.1', port: 0 });
    try {
      const { code, stdout, stderr } = await runWith(registryOf(ping), '--url', server.url);
      expect(code).toBe(2);
      expect(stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(stderr.trimEnd()).toMatch(/^error: cannot connect to https:\/\/127\.0\.0\.1:\d+\/mcp: .*[^.]; the server's certificate is not trusted \(DEPTH_ZERO_SELF_SIGNED_CERT: .*\); for a self-signed certificate pass --certificate-hash <its SHA-256 hex>, for one signed by your own CA pass --ca <file.pem>$/);
      // Printed once: the console does not repeat it.
      expect(stdout).not.toContain('cannot connect');
    } finally {
      await server.close();
    }
  });

  it('a Streamable HTTP endpoint nobody listens on is unreachable: exit 2, one line, not a failure per case', async () => {
    const { code, stdout, stderr } = await runWith(registryOf(ping, fails), '--url', 'http://127.0.0.1:9/mcp');
    expect(code).toBe(2);
    expect(stderr).toMatch(/^error: cannot connect to http:\/\/127\.0\.0\.1:9\/mcp: cannot reach POST [^\n]*\n$/);
    expect(stdout).not.toContain('FAIL');
    expect(stdout).not.toContain('cannot connect');
  });

  it('stdio: the command is spawned per case', async () => {
    const { code, stdout } = await runWith(registryOf(ping), '--stdio', stdioMockCommand(), '--timeout-scale', '3');
    expect(code).toBe(0);
    expect(lastLine(stdout)).toMatch(/^1 passed, 0 failed/);
  });
});

describe('server: the pre-flight initialize', () => {
  let dir: string;
  let web: Server;
  let webUrl: string;
  /** What the plain web server answers: a status and a content type, an HTML body. */
  let answer = { status: 404, type: 'text/html; charset=utf-8' };
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'server-preflight-'));
    web = createServer((request, response) => {
      request.resume();
      response.writeHead(answer.status, { 'content-type': answer.type }).end('<!doctype html><title>Not Found</title><h1>Not Found</h1>');
    });
    await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
    webUrl = `http://127.0.0.1:${(web.address() as AddressInfo).port}/mcp`;
  });
  afterAll(async () => {
    await new Promise((resolve) => web.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  it('an HTTP server answering 404 text/html: exit 2 with one line giving the status and content type, no case run, reports written', async () => {
    answer = { status: 404, type: 'text/html; charset=utf-8' };
    const reports = join(dir, 'not-found');
    const { code, stdout, stderr } = await runWith(registryOf(ping, fails), '--url', webUrl, '--reports', reports);
    expect(code).toBe(2);
    expect(stderr).toBe(`error: POST ${webUrl} answered 404 (text/html): is this the URL of the MCP endpoint?\n`);
    expect(stdout).not.toMatch(/FAIL|PASS/);
    // The reports a CI upload step expects are there, with the error at run level.
    const json = parseJsonReport(readFileSync(join(reports, 'report.json'), 'utf8'));
    expect(json).toMatchObject({ exitCode: 2, cases: [], error: { code: 'PREFLIGHT_FAILED', message: expect.stringContaining('answered 404') } });
    expect(readFileSync(join(reports, 'junit.xml'), 'utf8')).toMatch(/<testcase classname="run" name="run"[^>]*>\s*<error message="POST [^"]* answered 404 \(text\/html\): is this the URL of the MCP endpoint\?" type="PREFLIGHT_FAILED"/);
    expect(readFileSync(join(reports, 'report.html'), 'utf8')).toContain('<p class="run-error">The run stopped before its cases ran: POST');
    expect(stdout).toContain(`junit report: ${join(reports, 'junit.xml')}`);
  });

  it('a web page (200 text/html) is not an answer to initialize either', async () => {
    answer = { status: 200, type: 'text/html' };
    const { code, stderr } = await runWith(registryOf(ping), '--url', webUrl);
    expect(code).toBe(2);
    expect(stderr).toBe(`error: POST ${webUrl} answered 200 (text/html), not a JSON-RPC answer to initialize\n`);
  });

  it('a stdio command that exits at once: exit 2 with its exit status and the line of stderr that says why', async () => {
    const script = join(dir, 'exits.cjs');
    writeFileSync(script, "console.error('node:internal/modules/cjs/loader:1228'); console.error('Error: Cannot find module \\'/srv/typo.js\\''); process.exit(3);\n");
    const command = `${process.execPath} ${script}`;
    const { code, stdout, stderr } = await runWith(registryOf(ping, fails), '--stdio', command);
    expect(code).toBe(2);
    expect(stderr).toBe(`error: the command ${JSON.stringify(command)} exited with code 3 before answering initialize; stderr: Error: Cannot find module '/srv/typo.js'\n`);
    expect(stdout).not.toContain('FAIL');
  });

  it('a refused connection still writes the reports asked for', async () => {
    const reports = join(dir, 'refused');
    const { code, stderr } = await runWith(registryOf(ping), '--url', 'http://127.0.0.1:9/mcp', '--json', join(reports, 'report.json'));
    expect(code).toBe(2);
    expect(stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(parseJsonReport(readFileSync(join(reports, 'report.json'), 'utf8')).error).toMatchObject({ code: 'TARGET_UNREACHABLE' });
  });

  it('a stdio command that cannot be started writes every report asked for too (exit 2)', async () => {
    const reports = join(dir, 'no-such-command');
    const { code, stderr } = await runWith(registryOf(ping), '--stdio', '/nonexistent/mcp-server --flag', '--reports', reports);
    expect(code).toBe(2);
    expect(stderr).toMatch(/^error: cannot connect to \/nonexistent\/mcp-server --flag: cannot start .*ENOENT\n$/);
    expect(parseJsonReport(readFileSync(join(reports, 'report.json'), 'utf8'))).toMatchObject({ exitCode: 2, cases: [], error: { code: 'TARGET_UNREACHABLE' } });
    expect(readFileSync(join(reports, 'junit.xml'), 'utf8')).toContain('type="TARGET_UNREACHABLE"');
  });
});
