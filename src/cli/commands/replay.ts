// `mcp-flow-conformance replay`: re-sends the client side of a proxy record (`proxy --record`)
// against a server and prints, per server answer, whether it is the same as when recorded (after
// normalising what legitimately varies) or how it differs. Exit 1 on a difference, 0 when every
// answer is the same, 2 on bad usage, an unreadable record or an unreachable server.
import { connectUpstream, describeUpstream, formatReplayedAnswer, probeUpstream, ProxyError, readRecordFile, replaySession, type RecordedSession } from '../../peer/proxy/index.js';
import { ConnectionError } from '../../transport/errors.js';
import { CliUsageError } from '../errors.js';
import { ExitCode, type CliCommand, type CliIo } from '../io.js';
import { parseUpstreamArgs } from './proxy.js';

export async function runReplay(args: Record<string, unknown>, io: CliIo): Promise<number> {
  let sessions: RecordedSession[];
  let upstream: ReturnType<typeof parseUpstreamArgs>;
  const timeout = args['timeout'] === undefined ? 10_000 : Number(args['timeout']);
  try {
    if (typeof args['record'] !== 'string' || args['record'].trim() === '') throw new CliUsageError('--record', 'name the record file written by `proxy --record`');
    if (!Number.isFinite(timeout) || timeout <= 0) throw new CliUsageError('--timeout', `must be a positive number of milliseconds, got ${String(args['timeout'])}`);
    upstream = parseUpstreamArgs({
      urlOption: '--url',
      stdioOption: '--stdio',
      url: args['url'],
      stdio: args['stdio'],
      transport: args['transport'],
      certificateHash: args['cert-hash'],
      ca: args['ca'],
      http: args['http'],
      header: args['header'],
    });
    sessions = await readRecordFile(args['record']);
    await probeUpstream(upstream, { timeoutMs: timeout });
  } catch (error) {
    if (!(error instanceof CliUsageError) && !(error instanceof ProxyError)) throw error;
    io.err(`error: ${error.message}`);
    return ExitCode.usage;
  }
  io.out(`replaying ${sessions.length} session(s) of ${String(args['record'])} against ${describeUpstream(upstream)}`);
  let differing = 0;
  let total = 0;
  for (const session of sessions) {
    let connection;
    try {
      connection = await connectUpstream(upstream, { timeoutMs: timeout });
    } catch (error) {
      if (!(error instanceof ProxyError) && !(error instanceof ConnectionError)) throw error;
      io.err(`error: ${error.message}`);
      return ExitCode.usage;
    }
    try {
      const answers = await replaySession(session, connection, { timeoutMs: timeout });
      for (const answer of answers) {
        total++;
        if (answer.differences.length > 0) differing++;
        io.out(formatReplayedAnswer(answer));
      }
    } finally {
      await connection.close('replay done');
    }
  }
  io.out(differing === 0 ? `no difference in ${total} answer(s)` : `${differing} of ${total} answer(s) differ`);
  return differing === 0 ? ExitCode.ok : ExitCode.failure;
}

export const replayCommand: CliCommand = {
  command: 'replay',
  describe: 're-send the client side of a proxy record against a server and diff the answers',
  builder: (yargs) =>
    yargs
      .usage('$0 replay --record session.ndjson --url http://127.0.0.1:3000/mcp\n$0 replay --record session.ndjson --stdio "node server.js"')
      .option('record', { type: 'string', describe: 'the NDJSON record written by `proxy --record`' })
      .option('url', { type: 'string', describe: 'the server: https: is WebTransport unless --transport http; http: is Streamable HTTP' })
      .option('stdio', { type: 'string', describe: 'the server as a command line, spawned on stdio (once per recorded session)' })
      .option('transport', { type: 'string', describe: 'webtransport or http (default from the URL scheme)' })
      .option('cert-hash', { alias: 'certificate-hash', type: 'string', describe: "pinned SHA-256 of the WebTransport server's certificate" })
      .option('ca', { type: 'string', describe: "PEM CA file to verify the server's certificate against" })
      .option('http', { type: 'number', describe: 'HTTP version under WebTransport: 2 (default) or 3' })
      .option('header', { type: 'string', array: true, describe: '"Name: value" sent with every Streamable HTTP request (repeatable)' })
      .option('timeout', { type: 'number', describe: 'how long to wait for each server message, in ms (default 10000)' }),
  run: runReplay,
};
