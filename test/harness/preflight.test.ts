// The pre-flight initialize on scripted in-memory peers: an answer (even an error) or a reply the
// cases must judge lets the run go on, silence is `silent`, a peer that closes before answering is
// a PreflightFailedError saying so; the stderr line it quotes is the one that names the problem.
import { describe, expect, it } from 'vitest';
import { PreflightFailedError } from '../../src/harness/errors.js';
import { preflight, tellingLine } from '../../src/harness/preflight.js';
import { scriptedTarget } from './targets.js';

type Msg = Record<string, unknown>;

describe('preflight', () => {
  it('answered: a result, or an error (judging it is the cases\' work)', async () => {
    const result = scriptedTarget(async (server) => {
      const { message } = await server.next();
      await server.send({ jsonrpc: '2.0', id: (message as Msg).id, result: { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 's', version: '1' } } });
    });
    expect(await preflight(result, { limitMs: 5000 })).toBe('answered');
    const error = scriptedTarget(async (server) => {
      const { message } = await server.next();
      await server.send({ jsonrpc: '2.0', id: (message as Msg).id, error: { code: -32602, message: 'Unsupported protocol version' } });
    });
    expect(await preflight(error, { limitMs: 5000 })).toBe('answered');
    // The connection is closed afterwards.
    expect(result.opened.every((c) => c.isClosed) && error.opened.every((c) => c.isClosed)).toBe(true);
  });

  it('silent until the deadline: the run goes on (discovery records it)', async () => {
    const silent = scriptedTarget(async () => undefined);
    expect(await preflight(silent, { limitMs: 200 })).toBe('silent');
  });

  it('a peer that closes before answering: one line saying so', async () => {
    const closes = scriptedTarget(async (server) => {
      await server.next();
      await server.close('crashed');
    });
    await expect(preflight(closes, { limitMs: 5000 })).rejects.toThrow(PreflightFailedError);
    await expect(preflight(closes, { limitMs: 5000 })).rejects.toThrow(/^scripted in-memory peer closed the connection before answering initialize/);
  });

  it('an interrupted pre-flight is silent, not a failure of the target', async () => {
    const controller = new AbortController();
    controller.abort();
    expect(await preflight(scriptedTarget(async () => undefined), { limitMs: 5000, signal: controller.signal })).toBe('silent');
  });

  it('quotes the stderr line that names the problem, else the first line with text', () => {
    expect(tellingLine(['node:internal/modules/cjs/loader:1228', '  throw err;', '  ^', '', "Error: Cannot find module '/srv/x.js'"])).toBe("Error: Cannot find module '/srv/x.js'");
    expect(tellingLine(['', '  listening on 3000  '])).toBe('listening on 3000');
    expect(tellingLine([])).toBeUndefined();
  });
});
