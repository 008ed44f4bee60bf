// The mock server as a stdio server in this process: for each connection, what
// `mock-server --transport stdio` is as a process (a fresh server on stdin/stdout, its banner on
// stderr, gone when stdin ends), started on pipes by connectPiped instead of spawned. The same
// server code and the same stdio framing on both sides; no node process to start per case.
import { connectPiped, type PipedStdioConnection, type StdioClientOptions } from '../../transport/stdio/index.js';
import { describeServer } from './describe.js';
import { startMockServer, type StartMockServerOptions } from './start.js';

/** What a piped mock server may be started with: everything but where it listens. */
export type PipedMockServerOptions = Omit<StartMockServerOptions, 'transport' | 'stdio' | 'host' | 'port' | 'cert' | 'key' | 'http'>;

/**
 * A stdio launch (a stdio target's `launch`) that serves the mock server in this process, a new one
 * per connection, started with `options`. The command line given to the launch only names it (in
 * the transcript and in rerun commands: the process it stands for).
 */
export function pipedMockServer(options: PipedMockServerOptions = {}): (command: string, client: StdioClientOptions) => Promise<PipedStdioConnection> {
  return (command, client) =>
    connectPiped(
      command,
      async ({ stdin, stdout, stderr }) => {
        const print = (text: string) => void stderr.write(`${text}\n`);
        const server = await startMockServer({
          ...options,
          transport: 'stdio',
          stdio: { stdin, stdout },
          ...(options.log === true ? { log: print } : {}),
        });
        print(describeServer(server));
        let reason = 'stdin ended';
        const exited = server.done.then(async () => {
          await server.close();
          print(`mock server stopped (${reason})`);
          return 0;
        });
        return {
          exited,
          stop: async () => {
            reason = 'told to stop';
            await server.close();
          },
        };
      },
      client,
    );
}
