// The `validate` command, run in-process through main() with a capturing CliIo.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';

const dir = mkdtempSync(join(tmpdir(), 'validate-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let counter = 0;
function file(content: string): string {
  const path = join(dir, `input-${++counter}.json`);
  writeFileSync(path, content);
  return path;
}

async function run(args: string[], stdin = ''): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: CliIo = { out: (t) => void (out += `${t}\n`), err: (t) => void (err += `${t}\n`), readStdin: async () => stdin };
  const code = await main(['validate', ...args], io);
  return { code, out, err };
}

const start = { jsonrpc: '2.0', id: 1, method: 'interaction.start', params: { toolName: 'booking' } };
const FLOW = 'https://mcp-flow-conformance.dev/schemas/flow/';

describe('validate', () => {
  it('names the schema a valid message matches, with its title, and exits 0', async () => {
    const { code, out } = await run([file(JSON.stringify(start))]);
    expect(code).toBe(0);
    expect(out).toContain(`valid: ${FLOW}interaction-start.request.schema.json (interaction.start request)`);
  });

  it('lists each error with its JSON pointer and keyword, and exits 1', async () => {
    const bad = { ...start, params: { toolName: 5, timeout: 0 } };
    const { code, out } = await run([file(JSON.stringify(bad))]);
    expect(code).toBe(1);
    expect(out).toContain('invalid');
    expect(out).toContain('/params/toolName [type]');
    expect(out).toContain('/params/timeout [minimum]');
  });

  it('reads NDJSON and matches a response to the request with the same id', async () => {
    const lines = [
      { jsonrpc: '2.0', id: 7, method: 'interaction.cancel', params: { sessionId: 's1' } },
      { jsonrpc: '2.0', id: 7, result: { cancelled: true } },
    ];
    const { code, out } = await run([file(lines.map((l) => JSON.stringify(l)).join('\n') + '\n')]);
    expect(code).toBe(0);
    expect(out).toContain(`message 1: valid: ${FLOW}interaction-cancel.request.schema.json`);
    expect(out).toContain(`message 2: valid: ${FLOW}interaction-cancel.result.schema.json`);
  });

  it('reads a JSON array of messages and fails if any is invalid', async () => {
    const { code, out } = await run([file(JSON.stringify([start, { jsonrpc: '2.0', id: 4, method: '$/shutdown' }]))]);
    expect(code).toBe(1);
    expect(out).toContain('message 1: valid:');
    expect(out).toMatch(/message 2: invalid[\s\S]*binding\/shutdown\.notification\.schema\.json[\s\S]*\(root\) \[not\]/);
  });

  it('notes members the documents do not name on a valid message, and exits 0', async () => {
    const { code, out } = await run([file(JSON.stringify({ jsonrpc: '2.0', method: '$/shutdown', params: { now: true } }))]);
    expect(code).toBe(0);
    expect(out).toContain('binding/shutdown.notification.schema.json');
    expect(out).toContain('note: members the documents do not name (allowed): /params/now');
  });

  it('reads standard input for "-"', async () => {
    const { code, out } = await run(['-'], JSON.stringify({ jsonrpc: '2.0', method: '$/cancel', params: { requestId: 99 } }));
    expect(code).toBe(0);
    expect(out).toContain('binding/cancel.notification.schema.json');
  });

  it('uses --request-method for a response on its own', async () => {
    const response = file(JSON.stringify({ jsonrpc: '2.0', id: 3, result: { accepted: false } }));
    const { code, out } = await run([response, '--request-method', 'interaction.respond']);
    expect(code).toBe(1);
    expect(out).toContain('interaction-respond.result.schema.json');
    expect(out).toContain('/result [required]');
  });

  it('validates against one schema named by --schema (a path suffix)', async () => {
    const payload = file(JSON.stringify({ type: 'ref/stream', streamTag: 4294967296 }));
    const { code, out } = await run([payload, '--schema', 'binding/ref-stream.payload']);
    expect(code).toBe(1);
    expect(out).toContain('/streamTag [maximum]');
    const ok = await run([file(JSON.stringify({ type: 'ref/stream', streamTag: 1 })), '--schema', 'ref-stream.payload.schema.json']);
    expect(ok.code).toBe(0);
  });

  it('restricts candidates with --family', async () => {
    const { code, out } = await run([file(JSON.stringify(start)), '--family', 'binding']);
    expect(code).toBe(1);
    expect(out).toContain('no schema describes method "interaction.start" in families binding');
  });

  it('reports a method no schema describes', async () => {
    const { code, out } = await run([file(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'interaction.teleport' }))]);
    expect(code).toBe(1);
    expect(out).toContain('no schema describes method "interaction.teleport"');
  });

  describe('exits 2 naming what was wrong', () => {
    it('for a file that does not exist', async () => {
      const missing = join(dir, 'missing.json');
      const { code, err } = await run([missing]);
      expect(code).toBe(2);
      expect(err).toContain(missing);
      expect(err).toContain('ENOENT');
    });

    it('for input that is neither JSON nor NDJSON', async () => {
      const path = file('{"jsonrpc": "2.0",');
      const { code, err } = await run([path]);
      expect(code).toBe(2);
      expect(err).toContain(path);
      expect(err).toContain('not valid JSON');
    });

    it('for a bad NDJSON line, naming the line', async () => {
      const path = file(`${JSON.stringify(start)}\n{oops}\n`);
      const { code, err } = await run([path]);
      expect(code).toBe(2);
      expect(err).toContain(`${path}: line 2`);
    });

    it('for empty input', async () => {
      const { code, err } = await run(['-'], '  \n');
      expect(code).toBe(2);
      expect(err).toContain('<stdin>: input is empty');
    });

    it('for an unknown or ambiguous --schema', async () => {
      const path = file(JSON.stringify(start));
      const unknown = await run([path, '--schema', 'flow/nothing.request']);
      expect(unknown.code).toBe(2);
      expect(unknown.err).toContain('names no loaded schema');
      const ambiguous = await run([path, '--schema', 'request.schema.json']);
      expect(ambiguous.code).toBe(2);
      expect(ambiguous.err).toContain('ambiguous');
    });

    it('for an unknown --family or --protocol-version', async () => {
      const path = file(JSON.stringify(start));
      const family = await run([path, '--family', 'flow,nope']);
      expect(family.code).toBe(2);
      expect(family.err).toContain('unknown family nope');
      const version = await run([path, '--protocol-version', '1999-01-01']);
      expect(version.code).toBe(2);
      expect(version.err).toContain('"1999-01-01" has no schemas');
    });
  });
});
