// `mcp-flow-conformance client -- <command>`: runs the client suites against a client (the harness
// acts as its server, one scenario per case: docs/client-scenarios.md) with the same verdicts,
// reports, baseline and exit codes as the `server` command.
import { clientTarget, type CaseRegistry } from '../../harness/index.js';
import { splitCommandLine } from '../../transport/stdio/index.js';
import { CliUsageError } from '../errors.js';
import { type CliCommand, type CliIo } from '../io.js';
import { executeRun, oneNumber, oneString, parseRunArgs, prepareRun, runOptions, type RunPlan, type ServerRunHooks } from './server.js';

export interface ClientPlan extends RunPlan {
  /** Undefined with --list and no command. */
  command?: string[];
  transport: 'webtransport' | 'http';
  http: 2 | 3;
}

const TRANSPORTS: Record<string, 'webtransport' | 'http'> = { wt: 'webtransport', webtransport: 'webtransport', http: 'http' };

/** Turns the parsed arguments into a plan; throws CliUsageError naming the first bad option. */
export function parseClientArgs(args: Record<string, unknown>): ClientPlan {
  const run = parseRunArgs(args);
  const transportText = oneString(args['transport'], '--transport') ?? 'wt';
  const transport = TRANSPORTS[transportText];
  if (transport === undefined) throw new CliUsageError('--transport', `must be wt or http, got ${JSON.stringify(transportText)}`);
  const http = (oneNumber(args['http'], '--http', (n) => n === 2 || n === 3, '2 or 3') ?? 2) as 2 | 3;
  if (http === 3 && transport !== 'webtransport') throw new CliUsageError('--http', '3 needs --transport wt');
  const commandLine = oneString(args['command'], '--command');
  const trailing = ((args['--'] as unknown[] | undefined) ?? []).map(String);
  if (commandLine !== undefined && trailing.length > 0) {
    throw new CliUsageError('--command', 'give the client command either with --command "..." or after --, not both');
  }
  let command: string[] | undefined;
  if (commandLine !== undefined) {
    try {
      command = splitCommandLine(commandLine);
    } catch (error) {
      throw new CliUsageError('--command', (error as Error).message, { cause: error });
    }
  } else if (trailing.length > 0) command = trailing;
  if (command === undefined && !run.list) {
    throw new CliUsageError('--', 'name the client under test: `client -- node my-client.js` (the server URL is appended)');
  }
  return { ...run, transport, http, ...(command !== undefined ? { command } : {}) };
}

/** Every client case, loaded on first use (as the server suites are). */
export async function loadClientRegistry(): Promise<CaseRegistry> {
  const { clientRegistry } = await import('../../../suites/client/index.js');
  return clientRegistry();
}

export async function runClient(args: Record<string, unknown>, io: CliIo, hooks: ServerRunHooks = {}): Promise<number> {
  const prepared = await prepareRun(io, () => parseClientArgs(args), async () => hooks.registry ?? (await loadClientRegistry()));
  if (typeof prepared === 'number') return prepared;
  const { plan, registry, baseline } = prepared;
  const command = plan.command!;
  return executeRun(io, {
    plan,
    registry,
    target: clientTarget({ command, transport: plan.transport, http: plan.http }),
    banner: `testing the client \`${command.join(' ')}\` over ${plan.transport === 'webtransport' ? `WebTransport (HTTP/${plan.http})` : 'Streamable HTTP'}`,
    command: 'client',
    ...(baseline !== undefined ? { baseline } : {}),
    ...(hooks.onResult !== undefined ? { onResult: hooks.onResult } : {}),
  });
}

export const clientCommand: CliCommand = {
  command: 'client',
  describe: 'run the client conformance suites against your client: the harness plays the server (docs/client-scenarios.md)',
  builder: (yargs) =>
    yargs
      .usage(
        '$0 client [options] -- node my-client.js        the server URL is appended; MCP_FLOW_SCENARIO names the scenario\n' +
          '$0 client --transport http --command "python client.py"',
      )
      .parserConfiguration({ 'populate--': true })
      .option('command', { type: 'string', describe: 'command line of the client under test (or give it after --)' })
      .option('transport', { type: 'string', describe: 'wt (WebTransport, default) or http (Streamable HTTP)' })
      .option('http', { type: 'number', describe: 'HTTP version under WebTransport: 2 (default) or 3' })
      .options(
        runOptions({
          workers: 'cases run at the same time, each with its own client process (default 4)',
          timeoutScale: 'multiply every time limit (slow clients, slow CI machines), e.g. 3',
        }),
      ),
  run: (args, io) => runClient(args, io),
};
