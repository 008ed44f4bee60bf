// `mock-client`: the MCP Flow mock client (src/peer/client/) in a terminal. Connects (WebTransport,
// Streamable HTTP or a stdio command), negotiates and says what was chosen, lists what the server
// offers (interactive tools marked), then calls a tool: an MCP Flow tool runs interactively
// (src/cli/terminal/) or from a script (--script / --answer, for CI), a plain tool with tools/call.
// --download writes execution-stream content to a file and verifies its length; --driver is the
// reference driver of docs/client-scenarios.md. Ctrl-C cancels ($/cancel, notifications/cancelled
// or interaction.cancel) and exits 130 once the cancel went out and was answered where it is answered.
import { accessSync, constants } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import {
  CANCEL,
  ClientFaults,
  connectMockClient,
  mockClientFaultCatalog,
  MockClientError,
  runScenario,
  scenarioFromEnvironment,
  scriptedAnswerer,
  answerList,
  SCENARIO_EXIT,
  ScenarioError,
  type Answerer,
  type CallOutcome,
  type InteractionOutcome,
  type MockClient,
  type MockClientTarget,
  type StreamOutcome,
} from '../../peer/client/index.js';
import { closestNames } from '../../common/names.js';
import { findInteractiveAdvertisements } from '../../protocol/flow-capability.js';
import type { ConsoleOutput } from '../../report/console.js';
import { ConnectionClosedError, ConnectionError } from '../../transport/errors.js';
import { parseCertificateHash } from '../../transport/webtransport/tls.js';
import { CliUsageError } from '../errors.js';
import { ExitCode, type CliCommand, type CliIo } from '../io.js';
import { TerminalAnswerer } from '../terminal/answerer.js';
import { DownloadFile, type DownloadVerdict } from '../terminal/download.js';
import { echoingAnswerer } from '../terminal/echoing-answerer.js';
import { TerminalError } from '../terminal/errors.js';
import { ProgressLine } from '../terminal/progress-bar.js';
import { showValue } from '../terminal/prompt-view.js';
import { renderJson, renderToolResult } from '../terminal/result-view.js';
import { parseAnswerOption, parseArgsOption, readScript, type AnswerScript, type ScriptExpectation } from '../terminal/script.js';
import type { OptionTable } from '../quick-args.js';

/** Exit code after Ctrl-C (128 + SIGINT), as shells report an interrupted command. */
export const EXIT_INTERRUPTED = 130;

/** What the command reads and draws on besides CliIo: the terminal, the environment, Ctrl-C. */
export interface MockClientHost {
  /** Where interactive answers are typed. */
  input: Readable;
  /** Where interactive questions and progress are drawn. */
  output: Writable & { isTTY?: boolean; columns?: number };
  /** Where the download progress bar is drawn (only when it is a TTY). */
  progress: ConsoleOutput;
  /** Read by --driver (MCP_FLOW_SCENARIO, MCP_FLOW_CONTEXT, MCP_FLOW_CERT_HASH). */
  env: Record<string, string | undefined>;
  /** Calls `handler` on each Ctrl-C outside readline (SIGINT); returns the removal. */
  onInterrupt(handler: () => void): () => void;
}

export const processHost = (): MockClientHost => ({
  input: process.stdin,
  output: process.stdout,
  progress: process.stderr,
  env: process.env,
  onInterrupt(handler) {
    process.on('SIGINT', handler);
    return () => void process.off('SIGINT', handler);
  },
});

/** The tool run the options ask for. */
interface RunPlan {
  tool: string;
  args: Record<string, unknown>;
  /** Scripted answers (--script or --answer); undefined: interactive in the terminal. */
  answers?: unknown[];
  expect?: ScriptExpectation;
}

function list(value: unknown): string[] {
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).map((item) => String(item));
}

function single(args: Record<string, unknown>, name: string): string | undefined {
  const value = args[name];
  if (value === undefined) return undefined;
  if (Array.isArray(value)) throw new CliUsageError(`--${name}`, `given ${value.length} times; give it once`);
  const text = String(value);
  if (text.trim() === '') throw new CliUsageError(`--${name}`, 'needs a non-empty value');
  return text;
}

/** The server to connect to, from --url / the positional URL / --stdio with their TLS options. */
export function parseTarget(args: Record<string, unknown>): MockClientTarget {
  const flagUrl = single(args, 'url');
  const positional = args['server-url'] === undefined ? undefined : String(args['server-url']);
  if (flagUrl !== undefined && positional !== undefined && flagUrl !== positional) throw new CliUsageError('--url', `given as ${flagUrl} and as the argument ${positional}; give one`);
  const url = flagUrl ?? positional;
  const stdio = single(args, 'stdio');
  const certificateHash = single(args, 'cert-hash');
  const ca = single(args, 'ca');
  if (url === undefined && stdio === undefined) throw new CliUsageError('mock-client', 'name the server with --url URL (https:// WebTransport, http:// Streamable HTTP) or --stdio "command"');
  if (url !== undefined && stdio !== undefined) throw new CliUsageError('--stdio', 'give either --url or --stdio, not both');
  if (stdio !== undefined) {
    if (certificateHash !== undefined || ca !== undefined) throw new CliUsageError(certificateHash !== undefined ? '--cert-hash' : '--ca', 'applies to a WebTransport --url only');
    return { stdio };
  }
  let parsed: URL;
  try {
    parsed = new URL(url!);
  } catch {
    throw new CliUsageError('--url', `${JSON.stringify(url)} is not a URL`);
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') throw new CliUsageError('--url', `${url} must start with https:// (WebTransport) or http:// (Streamable HTTP)`);
  if (parsed.protocol === 'http:' && (certificateHash !== undefined || ca !== undefined)) {
    throw new CliUsageError(certificateHash !== undefined ? '--cert-hash' : '--ca', 'applies to a WebTransport (https://) URL only');
  }
  if (certificateHash !== undefined && ca !== undefined) throw new CliUsageError('--ca', 'give either --cert-hash or --ca, not both');
  if (ca !== undefined) {
    try {
      accessSync(ca, constants.R_OK);
    } catch (error) {
      throw new CliUsageError('--ca', `cannot read ${ca}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, { cause: error });
    }
  }
  if (certificateHash !== undefined) {
    try {
      parseCertificateHash(certificateHash);
    } catch (error) {
      throw new CliUsageError('--cert-hash', (error as Error).message);
    }
  }
  return { url: url!, ...(certificateHash !== undefined ? { certificateHash } : {}), ...(ca !== undefined ? { caFile: ca } : {}) };
}

/** What to run, from --tool / --args / --script / --answer. */
export function parsePlan(args: Record<string, unknown>): RunPlan | undefined {
  const toolFlag = single(args, 'tool');
  const argsText = single(args, 'args');
  const scriptPath = single(args, 'script');
  const answers = list(args['answer']);
  let script: AnswerScript | undefined;
  if (scriptPath !== undefined) {
    if (answers.length > 0) throw new CliUsageError('--answer', 'give the answers either in the --script file or with --answer, not both');
    script = readScript(scriptPath);
    if (toolFlag !== undefined && toolFlag !== script.tool) throw new CliUsageError('--tool', `${toolFlag} differs from the script's tool ${script.tool}`);
    if (argsText !== undefined && script.initialParams !== undefined) throw new CliUsageError('--args', "the script has initialParams; give the tool's arguments in one place");
  }
  const tool = script?.tool ?? toolFlag;
  if (tool === undefined) {
    if (answers.length > 0) throw new CliUsageError('--answer', 'name the tool to answer with --tool');
    if (argsText !== undefined) throw new CliUsageError('--args', 'name the tool they are for with --tool');
    return undefined;
  }
  const toolArgs = argsText !== undefined ? parseArgsOption(argsText) : (script?.initialParams ?? {});
  if (script) return { tool, args: toolArgs, answers: script.answers, expect: script.expect };
  if (answers.length > 0) return { tool, args: toolArgs, answers: answers.map(parseAnswerOption), expect: 'completed' };
  return { tool, args: toolArgs };
}

/** Every client fault with its requirement and description, one per line. */
export function listClientFaults(): string {
  const catalog = mockClientFaultCatalog();
  const width = Math.max(...catalog.map((entry) => entry.name.length));
  return catalog
    .map((entry) => `${entry.name.padEnd(width)}  ${entry.requirement.padEnd(16)} ${entry.description}${entry.transports ? ` [${entry.transports.join(', ')}]` : ''}`)
    .join('\n');
}

function describeTarget(target: MockClientTarget, client: MockClient): string {
  return 'stdio' in target ? `stdio command ${JSON.stringify(target.stdio)}` : `${target.url} (${client.connection.kind})`;
}

/** Why connecting or initializing failed, in the user's terms (a stdio command that exited says so, with its stderr). */
async function connectProblem(target: MockClientTarget, client: MockClient | undefined, error: unknown): Promise<string> {
  const stdio = client?.connection.stdio;
  if ('stdio' in target && stdio && error instanceof ConnectionClosedError) {
    const exit = await Promise.race([stdio.exited, new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 2000).unref())]);
    const how = exit === undefined ? 'closed its stdout' : exit.signal ? `was killed by ${exit.signal}` : `exited with code ${String(exit.code)}`;
    const stderr = stdio.stderrLines().slice(-5);
    return `--stdio: the command ${JSON.stringify(target.stdio)} ${how} before answering initialize${stderr.length > 0 ? `; its last stderr lines:\n  ${stderr.join('\n  ')}` : ' (nothing on stderr)'}`;
  }
  const where = 'stdio' in target ? `the --stdio command ${JSON.stringify(target.stdio)}` : target.url;
  return `cannot reach ${where}: ${(error as Error).message}`;
}

/** Tools that accept interaction.start: probed only when the server advertises MCP Flow (C-14). */
async function interactiveTools(client: MockClient, tools: readonly string[]): Promise<Set<string>> {
  const interactive = new Set<string>();
  const capabilities = await client.request('capabilities', {}).catch(() => undefined);
  if (findInteractiveAdvertisements(client.initialized?.capabilities, capabilities?.['result']).length === 0) return interactive;
  const refuse: Answerer = { ask: async () => CANCEL };
  for (const tool of tools) {
    // A session the server starts proves the tool interactive; it is cancelled at its first prompt.
    const outcome = await client.interact(tool, undefined, refuse, { signal: AbortSignal.timeout(10_000) }).catch(() => undefined);
    if (outcome?.sessionId !== undefined) interactive.add(tool);
  }
  return interactive;
}

function name(item: Record<string, unknown>, key = 'name'): string {
  return typeof item[key] === 'string' ? (item[key] as string) : JSON.stringify(item[key]);
}

/** Items shown per list (a server may offer hundreds of resources). */
const LISTED = 20;

function describeList(title: string, items: Record<string, unknown>[], key: string, mark: (item: Record<string, unknown>) => boolean = () => false): string[] {
  if (items.length === 0) return [`${title}: (none)`];
  const width = Math.max(...items.map((item) => name(item, key).length));
  const lines = [`${title} (${items.length}):`];
  for (const item of items.slice(0, LISTED)) {
    const about = typeof item['title'] === 'string' ? item['title'] : typeof item['description'] === 'string' ? item['description'] : '';
    lines.push(`  ${name(item, key).padEnd(width)} ${mark(item) ? '*' : ' '} ${about.split('\n')[0]}`.trimEnd());
  }
  if (items.length > LISTED) lines.push(`  ... and ${items.length - LISTED} more`);
  return lines;
}

function streamLine(stream: StreamOutcome): string {
  const state = stream.complete ? 'complete' : `incomplete: ${stream.failure ?? 'did not end'}`;
  return `execution stream ${stream.streamTag} of request ${stream.requestId}${stream.mimeType ? ` (${stream.mimeType})` : ''}: ${stream.bytes} bytes, ${state}`;
}

function interactionLines(outcome: InteractionOutcome): string[] {
  const lines: string[] = [];
  if (outcome.status === 'completed') {
    lines.push(`completed${outcome.summary ? `: ${outcome.summary}` : ''}`);
    const data = outcome.result?.['data'];
    if (data !== undefined) lines.push('result:', ...renderJson(withoutInlineContent(data)).map((line) => `  ${line}`));
  } else if (outcome.status === 'cancelled') {
    lines.push('cancelled');
  } else {
    lines.push('failed');
  }
  for (const stream of outcome.streams) lines.push(streamLine(stream));
  for (const failure of outcome.failures) lines.push(`  ${failure}`);
  lines.push(`${outcome.answers} answers sent, ${outcome.rejections} refused`);
  return lines;
}

/** Large base64 file content is summarised in the printed result (it is what --download writes). */
function withoutInlineContent(data: unknown): unknown {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return data;
  const file = (data as Record<string, unknown>)['file'];
  if (file === null || typeof file !== 'object' || typeof (file as Record<string, unknown>)['content'] !== 'string') return data;
  const content = (file as Record<string, string>)['content']!;
  return { ...data, file: { ...file, content: `(${content.length} base64 characters)` } };
}

function callLines(outcome: CallOutcome): string[] {
  const lines: string[] = [];
  if (outcome.cancelled) lines.push('cancelled');
  else if (outcome.error) lines.push(`error ${showValue(outcome.error.code)}: ${showValue(outcome.error.message)}`);
  else if (outcome.result) lines.push(...renderToolResult(outcome.result));
  for (const stream of outcome.streams) lines.push(streamLine(stream));
  for (const failure of outcome.failures) if (!outcome.error) lines.push(`  ${failure}`);
  return lines;
}

/** Inline content standing in for a stream: the first embedded blob/text resource, or a wizard file's base64 content. */
function inlineContent(result: Record<string, unknown> | undefined): { bytes: Uint8Array; what: string; size?: number } | undefined {
  const content = Array.isArray(result?.['content']) ? (result['content'] as unknown[]) : [];
  for (const item of content) {
    const resource = (item as { type?: unknown; resource?: Record<string, unknown> }).type === 'resource' ? (item as { resource: Record<string, unknown> }).resource : undefined;
    if (typeof resource?.['blob'] === 'string') return { bytes: Buffer.from(resource['blob'], 'base64'), what: `resource ${showValue(resource['uri'])}` };
    if (typeof resource?.['text'] === 'string') return { bytes: Buffer.from(resource['text'], 'utf8'), what: `resource ${showValue(resource['uri'])}` };
  }
  const data = result?.['data'] as Record<string, unknown> | undefined;
  const file = data?.['file'] as Record<string, unknown> | undefined;
  if (typeof file?.['content'] === 'string') {
    return { bytes: Buffer.from(file['content'], 'base64'), what: `file ${showValue(file['name'])}`, ...(typeof file['size'] === 'number' ? { size: file['size'] } : {}) };
  }
  return undefined;
}

async function finishDownload(download: DownloadFile, streams: readonly StreamOutcome[], result: Record<string, unknown> | undefined): Promise<DownloadVerdict> {
  const stream = streams.find((s) => download.stream && s.requestId === download.stream.requestId && s.streamTag === download.stream.streamTag) ?? streams[0];
  if (stream) return download.finishStream(stream);
  const unnamed = await download.unnamedStream();
  if (unnamed) return unnamed;
  const inline = inlineContent(result);
  if (!inline) return download.nothing('the result named no execution stream and carried no inline content');
  await download.writeInline(inline.bytes);
  return download.finishInline(`inline ${inline.what} (no execution stream)`, inline.size);
}

function outcomeKind(outcome: InteractionOutcome | CallOutcome): ScriptExpectation {
  if ('status' in outcome) return outcome.status === 'failed' ? 'error' : outcome.status;
  return outcome.cancelled ? 'cancelled' : outcome.ok ? 'completed' : 'error';
}

/** The options of one run, checked before anything connects. */
interface RunOptions {
  target: MockClientTarget;
  plan: RunPlan | undefined;
  download: DownloadFile | undefined;
  faults: string[];
  log: ((line: string) => void) | undefined;
}

function parseRunOptions(args: Record<string, unknown>, host: MockClientHost, faults: string[], log: RunOptions['log']): RunOptions {
  const target = parseTarget(args);
  const plan = parsePlan(args);
  const downloadPath = single(args, 'download');
  const expectBytes = args['expect-bytes'] as number | undefined;
  if (expectBytes !== undefined && downloadPath === undefined) throw new CliUsageError('--expect-bytes', 'checks a --download; give --download FILE');
  if (downloadPath !== undefined && plan === undefined) throw new CliUsageError('--download', 'name the tool whose result to download with --tool');
  const download = downloadPath === undefined ? undefined : new DownloadFile(downloadPath, { progress: host.progress, ...(expectBytes !== undefined ? { expectedBytes: expectBytes } : {}) });
  return { target, plan, download, faults, log };
}

export async function runMockClient(args: Record<string, unknown>, io: CliIo, host: MockClientHost = processHost()): Promise<number> {
  if (args['list-faults'] === true) {
    io.out(listClientFaults());
    return ExitCode.ok;
  }
  const faults = list(args['fault']);
  const log = args['log'] === true ? (line: string) => io.err(line) : undefined;
  try {
    new ClientFaults(faults);
  } catch (error) {
    io.err(`error: --fault: ${(error as Error).message}`);
    return ExitCode.usage;
  }
  if (args['driver'] === true) return runDriver(args, io, host, faults, log);
  let options: RunOptions;
  try {
    options = parseRunOptions(args, host, faults, log);
  } catch (error) {
    if (error instanceof CliUsageError || error instanceof MockClientError) {
      io.err(`error: ${error.message}`);
      return ExitCode.usage;
    }
    throw error;
  }
  return new MockClientRun(options, io, host).run();
}

/** One connection's run: connect and describe, list, then the tool the options name; Ctrl-C handled throughout. */
class MockClientRun {
  readonly #options: RunOptions;
  readonly #io: CliIo;
  readonly #host: MockClientHost;
  /** Aborted by the first Ctrl-C: what runs is cancelled. */
  readonly #interrupted = new AbortController();
  /** Resolved by a second Ctrl-C: quit without waiting. */
  readonly #quit: Promise<'quit'>;
  #resolveQuit!: () => void;
  #client: MockClient | undefined;
  #terminal: TerminalAnswerer | undefined;
  /** A plain call's progress: a bar redrawn in place on a terminal, one line per change otherwise. */
  readonly #callProgress: ProgressLine;

  constructor(options: RunOptions, io: CliIo, host: MockClientHost) {
    this.#options = options;
    this.#io = io;
    this.#host = host;
    this.#quit = new Promise((resolve) => (this.#resolveQuit = () => resolve('quit')));
    this.#callProgress =
      host.output.isTTY === true ? new ProgressLine(host.output, true) : new ProgressLine({ write: (text) => io.out(text.replace(/\n$/, '')) }, false);
  }

  async run(): Promise<number> {
    const removeInterrupt = this.#host.onInterrupt(this.#interrupt);
    try {
      const result = await Promise.race([this.#session(), this.#quit]);
      return result === 'quit' ? EXIT_INTERRUPTED : result;
    } catch (error) {
      if (error instanceof TerminalError || error instanceof MockClientError || error instanceof ConnectionError) {
        this.#io.err(`error: ${error.message}`);
        return this.#interrupted.signal.aborted ? EXIT_INTERRUPTED : ExitCode.failure;
      }
      throw error;
    } finally {
      removeInterrupt();
      this.#terminal?.close();
      await this.#client?.close();
    }
  }

  /** Ctrl-C: the first cancels what runs (the cancel is sent and, where answered, awaited); a second quits at once. */
  readonly #interrupt = (): void => {
    if (this.#interrupted.signal.aborted) return this.#resolveQuit();
    // The bar drawn in place ends here; progress that still arrives while the cancel goes out is not drawn.
    this.#callProgress.end();
    this.#io.err('cancelling (Ctrl-C again to quit at once)');
    this.#interrupted.abort();
  };

  async #session(): Promise<number> {
    const { target, plan } = this.#options;
    const io = this.#io;
    let client: MockClient;
    try {
      client = await connectMockClient(target, {
        faults: this.#options.faults,
        ...(this.#options.log ? { log: this.#options.log } : {}),
        onNotification: (message) => this.#onNotification(message),
      });
      this.#client = client;
      const info = await client.initialize();
      const server = info.serverInfo as { name?: unknown; version?: unknown } | undefined;
      io.out(`connected to ${describeTarget(target, client)}`);
      io.out(`server: ${showValue(server?.name ?? '(unnamed)')} ${showValue(server?.version ?? '')}`.trimEnd());
      io.out(`protocol version ${info.protocolVersion}, encoding ${info.encoding}${client.connection.webtransport ? ' (offered cbor, json)' : ''}`);
    } catch (error) {
      if (error instanceof ConnectionError || error instanceof MockClientError) {
        io.err(`error: ${await connectProblem(target, this.#client, error)}`);
        return ExitCode.usage;
      }
      throw error;
    }
    const tools = await client.listTools();
    const toolNames = tools.map((tool) => name(tool));
    const interactive = await interactiveTools(client, toolNames);
    io.out(describeList('tools', tools, 'name', (tool) => interactive.has(name(tool))).join('\n'));
    if (interactive.size > 0) io.out('  (* interactive: MCP Flow)');
    io.out(describeList('prompts', await client.listPrompts(), 'name').join('\n'));
    io.out(describeList('resources', await client.listResources(), 'uri').join('\n'));
    if (this.#interrupted.signal.aborted) return EXIT_INTERRUPTED;
    if (plan === undefined) return ExitCode.ok;
    if (!toolNames.includes(plan.tool)) {
      const close = closestNames(plan.tool, toolNames);
      const hint = close.length > 0 ? `did you mean ${close.map((n) => JSON.stringify(n)).join(', ')}?` : `it offers ${toolNames.slice(0, 12).join(', ') || 'no tools'}`;
      io.err(`error: --tool: the server has no tool ${JSON.stringify(plan.tool)} (${hint})`);
      return ExitCode.usage;
    }
    const outcome = interactive.has(plan.tool) ? await this.#interact(client, plan) : await this.#call(client, plan);
    if (this.#interrupted.signal.aborted) return EXIT_INTERRUPTED;
    return this.#verdict(plan, outcome);
  }

  /** An MCP Flow tool: answered in the terminal, or from the script. */
  async #interact(client: MockClient, plan: RunPlan): Promise<InteractionOutcome> {
    const io = this.#io;
    let answerer: Answerer;
    if (plan.answers !== undefined) answerer = echoingAnswerer(scriptedAnswerer(answerList(plan.answers)), (line) => io.out(line));
    else {
      this.#terminal = new TerminalAnswerer({ input: this.#host.input, output: this.#host.output, onInterrupt: this.#interrupt, signal: this.#interrupted.signal });
      answerer = this.#terminal;
    }
    io.out(`interaction ${plan.tool}${plan.answers !== undefined ? ` (scripted, ${plan.answers.length} answers)` : ''}`);
    const initialParams = Object.keys(plan.args).length > 0 ? plan.args : undefined;
    const outcome = await client.interact(plan.tool, initialParams, answerer, { signal: this.#interrupted.signal });
    this.#terminal?.close();
    io.out(interactionLines(outcome).join('\n'));
    return outcome;
  }

  /** Any other tool: tools/call, its execution streams read (the first into --download). */
  async #call(client: MockClient, plan: RunPlan): Promise<CallOutcome> {
    const io = this.#io;
    io.out(`tools/call ${plan.tool}`);
    if (plan.answers !== undefined && plan.answers.length > 0) io.err(`note: ${plan.tool} is not an MCP Flow tool here: the ${plan.answers.length} scripted answers are not used`);
    const download = this.#options.download;
    const outcome = await client.callTool(plan.tool, plan.args, {
      signal: this.#interrupted.signal,
      onProgress: (update) =>
        !this.#interrupted.signal.aborted &&
        this.#callProgress.show({
          current: update.progress,
          ...(update.total !== undefined ? { total: update.total } : {}),
          ...(update.message !== undefined ? { message: update.message } : {}),
        }),
      ...(download ? { download: download.sink } : {}),
    });
    this.#callProgress.end();
    download?.endProgress();
    io.out(callLines(outcome).join('\n'));
    return outcome;
  }

  /** The exit code: the download's verdict, then the script's expectation or plain success. */
  async #verdict(plan: RunPlan, outcome: InteractionOutcome | CallOutcome): Promise<number> {
    const io = this.#io;
    let downloaded = true;
    const download = this.#options.download;
    if (download) {
      const verdict = await finishDownload(download, outcome.streams, outcome.result);
      if (verdict.ok) io.out(verdict.text);
      else io.err(verdict.text);
      downloaded = verdict.ok;
    }
    const kind = outcomeKind(outcome);
    if (plan.expect !== undefined) {
      if (kind !== plan.expect) {
        const why = outcome.failures.length > 0 ? `: ${outcome.failures.join('; ')}` : '';
        io.err(`error: the script expected the flow to end ${plan.expect}, but it ended ${kind}${why}`);
        return ExitCode.failure;
      }
      io.out(`ended ${kind}, as the script expected`);
    }
    if (!downloaded) return ExitCode.failure;
    return plan.expect !== undefined || kind === 'completed' ? ExitCode.ok : ExitCode.failure;
  }

  /** Server notifications worth showing: an interaction.continue's text, $/streamError for the download, log messages. */
  #onNotification(message: Record<string, unknown>): void {
    const params = (message['params'] ?? {}) as Record<string, unknown>;
    if (message['method'] === 'interaction.continue') {
      const progress = params['progress'] as { message?: unknown } | undefined;
      if (typeof progress?.message !== 'string') return;
      if (this.#terminal) this.#terminal.message(progress.message);
      else this.#io.out(progress.message);
    } else if (message['method'] === '$/streamError') {
      this.#options.download?.streamError(params);
    } else if (message['method'] === 'notifications/message') {
      this.#io.err(`server log (${showValue(params['level'])}): ${showValue(params['data'])}`);
    }
  }
}

/** --driver: the client-conformance driver contract (docs/client-scenarios.md). */
async function runDriver(args: Record<string, unknown>, io: CliIo, host: MockClientHost, faults: string[], log: ((line: string) => void) | undefined): Promise<number> {
  const url = args['server-url'] ?? args['url'];
  let env;
  try {
    env = scenarioFromEnvironment(url === undefined ? [] : [String(url)], host.env);
  } catch (error) {
    if (error instanceof ScenarioError) {
      io.err(`error: --driver: ${error.message}`);
      return SCENARIO_EXIT.usage;
    }
    throw error;
  }
  const outcome = await runScenario(env, { faults, ...(log ? { log } : {}) });
  for (const step of outcome.steps) io.out(`${step.ok ? 'ok  ' : 'FAIL'} ${step.name}${step.detail ? `: ${step.detail}` : ''}`);
  io.out(`scenario ${outcome.scenario}: ${outcome.ok ? 'ok' : 'failed'} (exit ${outcome.exitCode})`);
  return outcome.exitCode;
}

/** The options of `mock-client`, read by yargs (the builder) and by quickArgs alike. */
export const MOCK_CLIENT_OPTIONS: OptionTable = {
  url: { type: 'string', describe: 'https://... (WebTransport) or http://... (Streamable HTTP)' },
  stdio: { type: 'string', describe: 'command line starting a server that speaks MCP on its stdio' },
  'cert-hash': { type: 'string', describe: 'WebTransport: SHA-256 of the server certificate (hex) to pin' },
  ca: { type: 'string', describe: 'WebTransport: PEM CA file the server certificate must verify against' },
  tool: { type: 'string', describe: 'tool to run: MCP Flow tools interactively, others with tools/call' },
  args: { type: 'string', describe: 'tool arguments (initialParams of an MCP Flow tool) as a JSON object' },
  script: { type: 'string', describe: 'JSON file {"tool", "initialParams"?, "answers": [...], "expect"?: "completed"|"cancelled"|"error"}' },
  answer: { type: 'string', describe: 'scripted answer, JSON or text (repeatable, in order; "$cancel" cancels)' },
  download: { type: 'string', describe: 'write the execution-stream content of the result to this file' },
  'expect-bytes': { type: 'number', describe: 'the length --download must have (default: the length the result announces)' },
  driver: { type: 'boolean', describe: 'run MCP_FLOW_SCENARIO against the URL (docs/client-scenarios.md)' },
  fault: { type: 'string', describe: 'switch a client fault on (repeatable); see --list-faults' },
  'list-faults': { type: 'boolean', describe: 'print every client fault with its requirement ID and exit' },
  log: { type: 'boolean', describe: 'print every frame on stderr (CBOR decoded and shown as JSON)' },
};

/** What is wrong with the options of a `mock-client` command line beyond their types, or undefined. */
export function checkMockClientArgs(args: Record<string, unknown>): string | undefined {
  const bytes = args['expect-bytes'];
  if (bytes !== undefined && !(Number.isSafeInteger(bytes) && (bytes as number) >= 0)) return `--expect-bytes must be a non-negative integer, got ${String(bytes)}`;
  return undefined;
}

export const mockClientCommand: CliCommand = {
  command: 'mock-client [server-url]',
  describe: 'connect the MCP Flow mock client to a server: list what it offers, run a tool interactively or from a script, download, or act as a client-conformance driver',
  builder: (yargs) =>
    yargs
      .positional('server-url', { type: 'string', describe: 'server URL (same as --url; last argument in --driver mode)' })
      .options(MOCK_CLIENT_OPTIONS as Record<string, import('yargs').Options>)
      .check((argv) => {
        const wrong = checkMockClientArgs(argv);
        if (wrong !== undefined) throw new Error(wrong);
        return true;
      }),
  run: (args, io) => runMockClient(args, io),
  quick: { options: MOCK_CLIENT_OPTIONS, positional: 'server-url', check: checkMockClientArgs },
};
