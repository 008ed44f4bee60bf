// `mock-server`: runs the reference mock server on one transport until SIGINT/SIGTERM (or, on
// stdio, until stdin ends). What it serves goes to stdout, or to stderr on stdio, where stdout
// carries the protocol.
import { ConnectionError } from '../../transport/errors.js';
import { MockServerError } from '../../peer/server/extension.js';
import { MOCK_TRANSPORTS, mockServerFaultCatalog, startMockServer, type MockTransport, type RunningMockServer } from '../../peer/server/start.js';
import { describeServer } from '../../peer/server/describe.js';
import { untilSignal } from '../signals.js';
import { ExitCode, type CliCommand, type CliIo } from '../io.js';
import type { OptionTable } from '../quick-args.js';

/** Every fault with its layer, requirement ID and description, one per line. */
export function listFaults(): string {
  const catalog = mockServerFaultCatalog();
  const width = Math.max(...catalog.map((entry) => entry.name.length));
  return catalog.map((entry) => `${entry.name.padEnd(width)}  ${entry.requirement.padEnd(16)} [${entry.layer}] ${entry.description}`).join('\n');
}

function optionalNumber(args: Record<string, unknown>, name: string): number | undefined {
  const value = args[name];
  return value === undefined ? undefined : (value as number);
}

export async function runMockServer(args: Record<string, unknown>, io: CliIo): Promise<number> {
  if (args['list-faults'] === true) {
    io.out(listFaults());
    return ExitCode.ok;
  }
  const transport = args['transport'] as MockTransport | undefined;
  if (transport === undefined) {
    io.err(`error: --transport is required (${MOCK_TRANSPORTS.join(', ')})`);
    return ExitCode.usage;
  }
  const print = transport === 'stdio' ? io.err.bind(io) : io.out.bind(io);
  const preference = args['encoding-preference'] as string | undefined;
  // Listen for signals before anything is printed: a supervisor may signal as soon as it sees the banner.
  const { signalled, dispose } = untilSignal();
  let server: RunningMockServer;
  try {
    server = await startMockServer({
      transport,
      host: args['host'] as string,
      port: args['port'] as number,
      ...(args['cert'] !== undefined ? { cert: args['cert'] as string } : {}),
      ...(args['key'] !== undefined ? { key: args['key'] as string } : {}),
      http: args['http'] === 3 ? 3 : 2,
      ...(preference !== undefined ? { encodings: preference.split(',').map((name) => name.trim()) } : {}),
      limits: {
        ...(optionalNumber(args, 'max-message-size') !== undefined ? { maxMessageSize: optionalNumber(args, 'max-message-size')! } : {}),
        ...(optionalNumber(args, 'max-concurrent-streams') !== undefined ? { maxConcurrentStreams: optionalNumber(args, 'max-concurrent-streams')! } : {}),
        ...(optionalNumber(args, 'max-sessions') !== undefined ? { maxSessions: optionalNumber(args, 'max-sessions')! } : {}),
        ...(optionalNumber(args, 'handshake-timeout') !== undefined ? { handshakeTimeoutMs: optionalNumber(args, 'handshake-timeout')! } : {}),
        ...(optionalNumber(args, 'idle-timeout') !== undefined ? { idleTimeoutMs: optionalNumber(args, 'idle-timeout')! } : {}),
        datagramsSupported: args['datagrams'] !== false,
      },
      wizards: (args['wizard'] as string[] | undefined) ?? [],
      ...(args['fastworkflow'] !== undefined ? { fastworkflow: args['fastworkflow'] as boolean } : {}),
      ...(args['store'] !== undefined ? { storeDir: args['store'] as string } : {}),
      faults: (args['fault'] as string[] | undefined) ?? [],
      readings: (args['readings'] as 'recommended' | 'alternate' | undefined) ?? 'recommended',
      ...(args['log'] === true ? { log: (line: string) => print(line) } : {}),
      ...(optionalNumber(args, 'kept-message-bytes') !== undefined ? { transcript: { maxMessageBytes: optionalNumber(args, 'kept-message-bytes')! } } : {}),
    });
  } catch (error) {
    dispose();
    if (error instanceof MockServerError || error instanceof ConnectionError || error instanceof RangeError) {
      io.err(`error: ${error.message}`);
      return ExitCode.usage;
    }
    throw error;
  }
  print(describeServer(server));
  const reason = await Promise.race([signalled, server.done.then(() => 'stdin ended')]);
  try {
    await server.close();
  } finally {
    dispose();
  }
  print(`mock server stopped (${reason})`);
  return ExitCode.ok;
}

/** The options of `mock-server`, read by yargs (the builder) and by quickArgs alike. */
export const MOCK_SERVER_OPTIONS: OptionTable = {
  transport: { type: 'string', choices: [...MOCK_TRANSPORTS], describe: 'wt (WebTransport over HTTP/2), http (Streamable HTTP) or stdio' },
  host: { type: 'string', default: '127.0.0.1', describe: 'address to listen on (wt, http)' },
  port: { type: 'number', default: 0, describe: 'port (0: any free port)' },
  http: { choices: [2, 3], default: 2, type: 'number', describe: 'HTTP version under WebTransport (3 needs the optional package @fails-components/webtransport-transport-http3-quiche)' },
  cert: { type: 'string', describe: 'PEM certificate file (wt; default: self-signed, hash printed)' },
  key: { type: 'string', describe: 'PEM private key file (wt)' },
  'encoding-preference': { type: 'string', describe: 'encodings spoken, preferred first (wt), e.g. cbor,json' },
  'max-message-size': { type: 'number', describe: 'largest message accepted, in bytes' },
  'max-concurrent-streams': { type: 'number', describe: 'execution streams a client may hold open (wt)' },
  'kept-message-bytes': { type: 'number', describe: 'bytes of each message kept in a session\'s transcript (default 65536); a larger one is kept as its size, SHA-256 and first bytes' },
  'max-sessions': { type: 'number', describe: 'sessions open at once (wt, http; more get 429; default 64)' },
  'handshake-timeout': { type: 'number', describe: 'ms a WebTransport session may take to complete initialize before it is closed (default 30000; 0: never)' },
  'idle-timeout': { type: 'number', describe: 'ms a session (wt, http) may stay idle, nothing in flight, before it is closed (default 600000; 0: never)' },
  datagrams: { type: 'boolean', default: true, describe: 'advertise datagram support (wt); --no-datagrams turns it off' },
  wizard: { type: 'string', array: true, describe: 'a wizard file to serve besides the shipped ones (repeatable)' },
  fastworkflow: { type: 'boolean', describe: 'serve the FastWorkflow profile (default: on for http)' },
  store: { type: 'string', describe: 'FastWorkflow conversation directory (default: a temporary one, removed at exit)' },
  readings: { type: 'string', choices: ['recommended', 'alternate'], default: 'recommended', describe: 'the readings of the profile taken where the documents leave a choice: recommended (the reference mock) or alternate (another allowed reading everywhere)' },
  fault: { type: 'string', array: true, describe: 'switch a fault on (repeatable); see --list-faults' },
  'list-faults': { type: 'boolean', describe: 'print every fault with its requirement ID and exit' },
  log: { type: 'boolean', describe: 'print every message (direction, connection, method/id, body as JSON)' },
};

/** What is wrong with the options of a `mock-server` command line beyond their types, or undefined. */
export function checkMockServerArgs(args: Record<string, unknown>): string | undefined {
  if (args['list-faults'] !== true && args['transport'] === undefined) return `--transport is required (${MOCK_TRANSPORTS.join(', ')})`;
  for (const name of ['port', 'max-message-size', 'max-concurrent-streams', 'max-sessions', 'handshake-timeout', 'idle-timeout'] as const) {
    const value = args[name];
    if (value !== undefined && !Number.isInteger(value)) return `--${name} must be an integer, got ${String(value)}`;
  }
  return undefined;
}

export const mockServerCommand: CliCommand = {
  command: 'mock-server',
  describe: 'run the reference mock server (WebTransport, Streamable HTTP or stdio) until SIGINT/SIGTERM',
  builder: (yargs) =>
    yargs.options(MOCK_SERVER_OPTIONS as Record<string, import('yargs').Options>).check((argv) => {
      const wrong = checkMockServerArgs(argv);
      if (wrong !== undefined) throw new Error(wrong);
      return true;
    }),
  run: runMockServer,
  quick: { options: MOCK_SERVER_OPTIONS, check: checkMockServerArgs },
};
