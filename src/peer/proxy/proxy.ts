// startProxy: the validating proxy as a peer. It listens like the mock server does (WebTransport,
// Streamable HTTP or its own stdio), and for each client that connects opens a connection to the
// real server and forwards everything both ways through a ProxySession, judging every message.
import type { Readable, Writable } from 'node:stream';
import { requirements as projectRequirements, type Requirements } from '../../protocol/requirements.js';
import { SchemaRegistry } from '../../schema/registry.js';
import type { Connection } from '../../transport/connection.js';
import { connectUpstream, describeUpstream, listen, probeUpstream, type Listener, type ListenSpec, type UpstreamSpec } from './endpoints.js';
import { ProxyRecord } from './record.js';
import { ProxySession } from './session.js';
import { SessionValidator } from './validator.js';
import type { Violation } from './violation.js';

export interface ProxyOptions {
  listen: ListenSpec;
  upstream: UpstreamSpec;
  /** Default 127.0.0.1 (wt, http). */
  host?: string;
  /** stdio listen: the streams to serve instead of this process's stdin and stdout. */
  stdio?: { stdin: Readable; stdout: Writable };
  /** End after the first session ends (`--once`; always so with stdio). */
  once?: boolean;
  /** Check that the upstream can be reached before listening. Default true. */
  probe?: boolean;
  /** Deadline for reaching the upstream. Default 10000 ms. */
  upstreamTimeoutMs?: number;
  onViolation?: (violation: Violation) => void;
  /** Lines about what the proxy does (sessions, adaptations, forwarding failures). */
  onNote?: (line: string) => void;
  registry?: SchemaRegistry;
  requirements?: Requirements;
}

export interface RunningProxy {
  readonly url: string;
  readonly certificateHash?: string;
  readonly listener: Listener;
  readonly record: ProxyRecord;
  readonly upstream: UpstreamSpec;
  /** Sessions so far, oldest first. */
  sessions(): readonly ProxySession[];
  violations(): readonly Violation[];
  /** Requirement IDs judged across every session. */
  checked(): ReadonlySet<string>;
  /** Resolves when the first session ended (with `once`, or on stdio). Never rejects. */
  readonly firstSessionEnded: Promise<void>;
  /** Stops listening, closes every session and waits until each is judged. Idempotent. */
  close(): Promise<void>;
}

export async function startProxy(options: ProxyOptions): Promise<RunningProxy> {
  const registry = options.registry ?? SchemaRegistry.load();
  const catalog = options.requirements ?? projectRequirements();
  if (options.probe ?? true) await probeUpstream(options.upstream, { timeoutMs: options.upstreamTimeoutMs ?? 10_000 });
  const record = new ProxyRecord();
  const sessions: ProxySession[] = [];
  const violations: Violation[] = [];
  const opening = new Set<Promise<void>>();
  const note = options.onNote ?? (() => undefined);
  let resolveFirst!: () => void;
  const firstSessionEnded = new Promise<void>((resolve) => (resolveFirst = resolve));
  let closing: Promise<void> | undefined;
  let count = 0;

  const onConnection = (downstream: Connection) => {
    if (closing || ((options.once ?? false) && count > 0)) {
      void downstream.close(closing ? 'proxy closing' : 'the proxy serves one session (--once)');
      return;
    }
    const number = ++count;
    const work = (async () => {
      let upstream: Connection;
      try {
        upstream = await connectUpstream(options.upstream, { timeoutMs: options.upstreamTimeoutMs ?? 10_000 });
      } catch (error) {
        note(`session ${number}: ${(error as Error).message}; closing the client's session`);
        record.event(number, `upstream unreachable: ${(error as Error).message}`);
        await downstream.close('upstream unreachable');
        if (number === 1) resolveFirst();
        return;
      }
      note(`session ${number}: client on ${downstream.kind} connected; forwarding to ${describeUpstream(options.upstream)}`);
      const validator = new SessionValidator({ session: number, registry, requirements: catalog, downstream: downstream.kind, upstream: upstream.kind });
      const session = new ProxySession({
        session: number,
        downstream,
        upstream,
        validator,
        record,
        onViolation: (violation) => {
          violations.push(violation);
          options.onViolation?.(violation);
        },
        onNote: note,
      });
      sessions.push(session);
      await session.ended;
      note(`session ${number}: ended with ${validator.violations.length} violation(s)`);
      if (number === 1) resolveFirst();
    })();
    opening.add(work);
    void work.finally(() => opening.delete(work));
  };

  const listener = await listen(options.listen, {
    ...(options.host !== undefined ? { host: options.host } : {}),
    ...(options.stdio ? { stdio: options.stdio } : {}),
    onConnection,
  });

  return {
    url: listener.url,
    ...(listener.certificateHash !== undefined ? { certificateHash: listener.certificateHash } : {}),
    listener,
    record,
    upstream: options.upstream,
    sessions: () => sessions,
    violations: () => violations,
    checked: () => {
      const ids = new Set<string>();
      for (const session of sessions) for (const id of session.validator.checked()) ids.add(id);
      return ids;
    },
    firstSessionEnded,
    close: () =>
      (closing ??= (async () => {
        await Promise.allSettled(sessions.map((session) => session.close('proxy closing')));
        await listener.close();
        await Promise.allSettled([...opening]);
        await Promise.allSettled(sessions.map((session) => session.close('proxy closing')));
      })()),
  };
}
