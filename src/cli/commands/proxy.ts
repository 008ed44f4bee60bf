// `mcp-flow-conformance proxy`: the validating proxy between a real client and a real server.
// Prints where it listens, each violation live (one line), and at the end (Ctrl-C / SIGTERM, or the
// session closing with --once, or stdin ending with --listen stdio) writes the record and the
// reports. Exit 1 when a MUST was violated, 0 otherwise, 2 on bad usage or an unreachable upstream.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { requirements } from '../../protocol/requirements.js';
import {
  describeUpstream,
  formatViolation,
  parseListenSpec,
  ProxyError,
  startProxy,
  type ListenSpec,
  type RunningProxy,
  type UpstreamSpec,
} from '../../peer/proxy/index.js';
import { proxyRunResult, ReportError, writeReports, type ReportPaths } from '../../report/index.js';
import { ConnectionError } from '../../transport/errors.js';
import { splitCommandLine } from '../../transport/stdio/index.js';
import { parseCertificateHash } from '../../transport/webtransport/tls.js';
import { CliUsageError, usageErrors } from '../errors.js';
import { untilSignal } from '../signals.js';
import { ExitCode, type CliCommand, type CliIo } from '../io.js';
import { parseHeaders } from '../../harness/server-target.js';
import { REPORT_FILES } from './server.js';

function single(option: string, value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (Array.isArray(value)) throw new CliUsageError(option, `given ${value.length} times; give it once`);
  if (typeof value !== 'string' || value.trim() === '') throw new CliUsageError(option, 'needs a non-empty value');
  return value;
}

/** The upstream options shared by `proxy` and `replay`, as yargs parsed them. */
export interface UpstreamArgs {
  /** The option naming the URL (`--upstream` for proxy, `--url` for replay). */
  urlOption: string;
  /** The option naming the stdio command (`--upstream-stdio`, `--stdio`). */
  stdioOption: string;
  url?: unknown;
  stdio?: unknown;
  transport?: unknown;
  certificateHash?: unknown;
  ca?: unknown;
  http?: unknown;
  header?: unknown;
}

/** Checks the upstream options; throws CliUsageError naming the first bad one. */
export function parseUpstreamArgs(args: UpstreamArgs): UpstreamSpec {
  const url = single(args.urlOption, args.url);
  const stdio = single(args.stdioOption, args.stdio);
  if (url === undefined && stdio === undefined) throw new CliUsageError(args.urlOption, `name the server with ${args.urlOption} URL or ${args.stdioOption} "command"`);
  if (url !== undefined && stdio !== undefined) throw new CliUsageError(args.stdioOption, `give either ${args.urlOption} or ${args.stdioOption}, not both`);
  const certificateHash = single('--cert-hash', args.certificateHash);
  const ca = single('--ca', args.ca);
  const headerLines = args.header === undefined ? [] : (Array.isArray(args.header) ? args.header : [args.header]).map(String);
  if (stdio !== undefined) {
    for (const [option, value] of [['--cert-hash', certificateHash], ['--ca', ca], ['--upstream-transport', args.transport], ['--header', headerLines.length > 0 ? headerLines : undefined]] as const) {
      if (value !== undefined) throw new CliUsageError(option === '--upstream-transport' && args.stdioOption === '--stdio' ? '--transport' : option, `has no meaning for ${args.stdioOption}`);
    }
    try {
      if (splitCommandLine(stdio).length === 0) throw new CliUsageError(args.stdioOption, 'the command is empty');
    } catch (error) {
      if (error instanceof CliUsageError) throw error;
      throw new CliUsageError(args.stdioOption, (error as Error).message, { cause: error });
    }
    return { transport: 'stdio', command: stdio };
  }
  let parsed: URL;
  try {
    parsed = new URL(url!);
  } catch {
    throw new CliUsageError(args.urlOption, `${JSON.stringify(url)} is not a URL`);
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    throw new CliUsageError(args.urlOption, `${JSON.stringify(url)} is neither https: (WebTransport, or Streamable HTTP with --upstream-transport http) nor http: (Streamable HTTP)`);
  }
  const transportArg = single('--upstream-transport', args.transport);
  if (transportArg !== undefined && transportArg !== 'webtransport' && transportArg !== 'http') {
    throw new CliUsageError('--upstream-transport', `must be webtransport or http, got ${JSON.stringify(transportArg)}`);
  }
  const transport = transportArg ?? (parsed.protocol === 'https:' ? 'webtransport' : 'http');
  if (transport === 'webtransport' && parsed.protocol !== 'https:') throw new CliUsageError(args.urlOption, 'WebTransport needs an https: URL');
  let caPem: string | undefined;
  if (ca !== undefined) {
    if (parsed.protocol === 'http:') throw new CliUsageError('--ca', 'has no meaning for a plain http: URL');
    try {
      caPem = readFileSync(ca, 'utf8');
    } catch (error) {
      throw new CliUsageError('--ca', `cannot read ${ca}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, { cause: error });
    }
    if (!caPem.includes('-----BEGIN CERTIFICATE-----')) throw new CliUsageError('--ca', `${ca} holds no PEM certificate`);
  }
  if (transport === 'webtransport') {
    if (headerLines.length > 0) throw new CliUsageError('--header', 'applies to a Streamable HTTP upstream only');
    if (certificateHash !== undefined) {
      try {
        parseCertificateHash(certificateHash);
      } catch (error) {
        throw new CliUsageError('--cert-hash', (error as Error).message, { cause: error });
      }
    }
    const http = args.http === undefined ? 2 : Number(args.http);
    if (http !== 2 && http !== 3) throw new CliUsageError('--http', `must be 2 or 3, got ${String(args.http)}`);
    return {
      transport,
      url: url!,
      http,
      ...(certificateHash !== undefined ? { certificateHash } : {}),
      ...(ca !== undefined ? { caFile: ca } : {}),
    };
  }
  if (certificateHash !== undefined) throw new CliUsageError('--cert-hash', 'pins a WebTransport certificate; for Streamable HTTP over https use --ca');
  const headers = usageErrors(() => parseHeaders(headerLines));
  return {
    transport: 'http',
    url: url!,
    ...(Object.keys(headers).length > 0 ? { headers } : {}),
    ...(caPem !== undefined ? { ca: caPem } : {}),
  };
}

interface ProxyPlan {
  listen: ListenSpec;
  host: string;
  upstream: UpstreamSpec;
  record?: string;
  reports: ReportPaths;
  once: boolean;
}

export function parseProxyArgs(args: Record<string, unknown>): ProxyPlan {
  const listenText = single('--listen', args['listen']);
  if (listenText === undefined) throw new CliUsageError('--listen', 'is required: wt[:port], http[:port] or stdio');
  let listen: ListenSpec;
  try {
    listen = parseListenSpec(listenText);
  } catch (error) {
    throw new CliUsageError('--listen', (error as Error).message.replace(/^--listen /, ''), { cause: error });
  }
  const upstream = parseUpstreamArgs({
    urlOption: '--upstream',
    stdioOption: '--upstream-stdio',
    url: args['upstream'],
    stdio: args['upstream-stdio'],
    transport: args['upstream-transport'],
    certificateHash: args['cert-hash'],
    ca: args['ca'],
    http: args['http'],
    header: args['header'],
  });
  const reportsDir = single('--reports', args['reports']);
  const reports: ReportPaths = reportsDir !== undefined ? { junit: join(reportsDir, REPORT_FILES.junit), json: join(reportsDir, REPORT_FILES.json), html: join(reportsDir, REPORT_FILES.html) } : {};
  for (const format of ['junit', 'json', 'html'] as const) {
    // The proxy's standard output is its live log: its reports go to files only.
    if (args[format] === '-' || args[format] === '' || args[format] === true) throw new CliUsageError(`--${format}`, 'the proxy writes its reports to files (standard output is its log)');
    const path = single(`--${format}`, args[format]);
    if (path !== undefined) reports[format] = path;
  }
  const record = single('--record', args['record']);
  return {
    listen,
    host: single('--host', args['host']) ?? '127.0.0.1',
    upstream,
    ...(record !== undefined ? { record } : {}),
    reports,
    // On stdio the client owns the proxy process: its session is the only one.
    once: args['once'] === true || listen.transport === 'stdio',
  };
}

function rerunLine(argv: Record<string, unknown>): string {
  const parts = ['mcp-flow-conformance', 'proxy', '--listen', String(argv['listen'])];
  if (argv['upstream'] !== undefined) parts.push('--upstream', String(argv['upstream']));
  if (argv['upstream-stdio'] !== undefined) parts.push('--upstream-stdio', JSON.stringify(String(argv['upstream-stdio'])));
  return parts.join(' ');
}

export async function runProxy(args: Record<string, unknown>, io: CliIo): Promise<number> {
  let plan: ProxyPlan;
  try {
    plan = parseProxyArgs(args);
  } catch (error) {
    if (!(error instanceof CliUsageError)) throw error;
    io.err(`error: ${error.message}`);
    return ExitCode.usage;
  }
  // With --listen stdio, stdout carries the protocol: everything the proxy says goes to stderr.
  const say = plan.listen.transport === 'stdio' ? io.err.bind(io) : io.out.bind(io);
  const { signalled, dispose } = untilSignal();
  const startedAt = Date.now();
  let proxy: RunningProxy;
  try {
    proxy = await startProxy({
      listen: plan.listen,
      upstream: plan.upstream,
      host: plan.host,
      once: plan.once,
      onViolation: (violation) => say(formatViolation(violation)),
      onNote: (line) => say(`proxy: ${line}`),
    });
  } catch (error) {
    dispose();
    if (error instanceof ProxyError || error instanceof ConnectionError) {
      io.err(`error: ${error.message}`);
      return ExitCode.usage;
    }
    throw error;
  }
  say(`proxy listening on ${proxy.url} (${proxy.listener.transport})`);
  if (proxy.certificateHash !== undefined) say(`certificate sha-256: ${proxy.certificateHash}`);
  say(`forwarding to ${describeUpstream(plan.upstream)}${plan.once ? ' (one session)' : ''}`);
  const waits: Promise<string>[] = [signalled];
  if (plan.once) waits.push(proxy.firstSessionEnded.then(() => 'the session ended'));
  const reason = await Promise.race(waits);
  let exitCode: number;
  try {
    await proxy.close();
    exitCode = await finish(proxy, plan, io, say, startedAt, reason, rerunLine(args));
  } finally {
    dispose();
  }
  return exitCode;
}

async function finish(proxy: RunningProxy, plan: ProxyPlan, io: CliIo, say: (text: string) => void, startedAt: number, reason: string, rerun: string): Promise<number> {
  let exitCode: number = ExitCode.ok;
  if (plan.record !== undefined) {
    try {
      await proxy.record.transcript.writeNdjson(plan.record);
      say(`record: ${plan.record}`);
    } catch (error) {
      io.err(`error: --record: cannot write ${plan.record}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
      exitCode = ExitCode.usage;
    }
  }
  const result = proxyRunResult({
    checked: proxy.checked(),
    violations: proxy.violations(),
    record: proxy.record,
    requirements: requirements(),
    description: `proxy ${proxy.url} -> ${describeUpstream(plan.upstream)}`,
    transport: `${proxy.listener.transport} -> ${plan.upstream.transport}`,
    startedAt,
    options: { sessions: proxy.sessions().length },
    rerun,
  });
  try {
    for (const written of await writeReports(result, plan.reports)) say(`${written.format} report: ${written.path}`);
  } catch (error) {
    if (!(error instanceof ReportError)) throw error;
    io.err(`error: ${error.message}`);
    exitCode = ExitCode.usage;
  }
  const violations = proxy.violations();
  const musts = violations.filter((v) => v.level === 'MUST').length;
  say(
    `proxy stopped (${reason}): ${proxy.sessions().length} session(s), ${violations.length} violation(s) (${musts} MUST) ` +
      `across ${result.summary.total} requirement(s) judged, ${result.summary.FAIL} failed, ${result.summary.WARN} warned`,
  );
  if (exitCode !== ExitCode.ok) return exitCode;
  return result.exitCode;
}

export const proxyCommand: CliCommand = {
  command: 'proxy',
  describe: 'sit between a real client and a real server, forward everything, and validate every message both ways',
  builder: (yargs) =>
    yargs
      .usage(
        '$0 proxy --listen http:8080 --upstream https://host:4433/mcp --cert-hash HEX   a Streamable HTTP client to a WebTransport server\n' +
          '$0 proxy --listen wt --upstream http://127.0.0.1:3000/mcp --once --json r.json\n' +
          '$0 proxy --listen stdio --upstream-stdio "node server.js"                  spawned by the client as its stdio server',
      )
      .option('listen', { type: 'string', describe: 'where clients connect: wt[:port] (WebTransport, self-signed certificate), http[:port] (Streamable HTTP) or stdio' })
      .option('host', { type: 'string', describe: 'address to listen on (wt, http; default 127.0.0.1)' })
      .option('upstream', { type: 'string', describe: 'the real server: https: is WebTransport unless --upstream-transport http; http: is Streamable HTTP' })
      .option('upstream-stdio', { type: 'string', describe: 'the real server as a command line, spawned on stdio for each session' })
      .option('upstream-transport', { type: 'string', describe: 'webtransport or http (default from the URL scheme)' })
      .option('cert-hash', { alias: 'certificate-hash', type: 'string', describe: "pinned SHA-256 of the WebTransport upstream's certificate (64 hex digits)" })
      .option('ca', { type: 'string', describe: "PEM CA file to verify the upstream's certificate against" })
      .option('http', { type: 'number', describe: 'HTTP version under a WebTransport upstream: 2 (default) or 3' })
      .option('header', { type: 'string', array: true, describe: '"Name: value" sent with every request to a Streamable HTTP upstream (repeatable)' })
      .option('record', { type: 'string', describe: 'save every proxied message (NDJSON transcript) for replay' })
      .option('once', { type: 'boolean', describe: 'stop when the first session ends (always so with --listen stdio)' })
      .option('junit', { type: 'string', describe: 'write a JUnit XML report to this path' })
      .option('json', { type: 'string', describe: 'write the JSON report to this path' })
      .option('html', { type: 'string', describe: 'write a self-contained HTML report to this path' })
      .option('reports', { type: 'string', describe: `write all three reports into this folder (${Object.values(REPORT_FILES).join(', ')})` }),
  run: runProxy,
};
