// `mcp-flow-conformance self-check`, run in-process through main(): on the package's own vectors and
// schemas, and on small fixtures with known faults.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { CliIo } from '../../src/cli/io.js';
import { VECTOR_FORMAT, VECTOR_VERSION, defaultVectorsDir, type Vector } from '../../src/vectors/vector-file.js';

function captureIo(): CliIo & { lines: () => string[]; errors: string[] } {
  const out: string[] = [];
  const errors: string[] = [];
  return {
    out: (text) => void out.push(...text.replace(/\n$/, '').split('\n')),
    err: (text) => void errors.push(text),
    readStdin: async () => '',
    lines: () => out,
    errors,
  };
}

async function selfCheck(args: string[] = []) {
  const io = captureIo();
  const code = await main(['self-check', ...args], io);
  return { code, lines: io.lines(), errors: io.errors };
}

const scratch = mkdtempSync(join(tmpdir(), 'self-check-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function folder(name: string): string {
  const path = join(scratch, name);
  mkdirSync(path, { recursive: true });
  return path;
}

function writeJson(path: string, value: unknown): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`);
}

function packageVectors(file: string): Vector[] {
  return (JSON.parse(readFileSync(join(defaultVectorsDir(), file), 'utf8')) as { vectors: Vector[] }).vectors;
}

/** A schemas root with one notification schema and examples: 2 good verdicts, 2 wrong ones. */
function faultySchemas(): string {
  const root = folder('schemas');
  const id = 'https://mcp-flow-conformance.dev/schemas/binding/hello.notification.schema.json';
  writeJson(join(root, 'binding', 'hello.notification.schema.json'), {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: id,
    'x-mcp-flow': { family: 'binding', kind: 'notification', method: 'hello', direction: 'client-to-server' },
    type: 'object',
    required: ['jsonrpc', 'method'],
    additionalProperties: false,
    properties: { jsonrpc: { const: '2.0' }, method: { const: 'hello' } },
  });
  writeJson(join(root, 'binding', 'hello.notification.examples.json'), {
    valid: [
      { description: 'a hello', instance: { jsonrpc: '2.0', method: 'hello' } },
      { description: 'not a hello at all', instance: { jsonrpc: '2.0', method: 'goodbye' } },
    ],
    invalid: [
      { description: 'no method', instance: { jsonrpc: '2.0' }, keyword: 'required' },
      { description: 'claims to be invalid', instance: { jsonrpc: '2.0', method: 'hello' }, keyword: 'const' },
    ],
  });
  return root;
}

describe('self-check on the package', () => {
  it('decodes every vector and validates every schema example, and passes', async () => {
    const { code, lines } = await selfCheck();
    expect(lines[0]).toMatch(/^self-check: decodes every hex test vector/);
    for (const file of ['control.json', 'datagram.json', 'exec-header.json', 'invalid.json', 'messages.json']) {
      const count = packageVectors(file).length;
      expect(lines).toContain(`vectors/${file}: ${count} passed, 0 failed`);
    }
    expect(lines.some((l) => /^schemas\/core\/2025-06-18\/tools-call\.request\.examples\.json: \d+ passed, 0 failed$/.test(l))).toBe(true);
    expect(lines.filter((l) => l.includes('FAIL'))).toEqual([]);
    const last = lines[lines.length - 1]!;
    const counted = lines
      .map((l) => /: (\d+) passed, \d+ failed$/.exec(l))
      .reduce((sum, m) => sum + (m ? Number(m[1]) : 0), 0);
    expect(last).toBe(`${counted} passed, 0 failed`);
    expect(code).toBe(0);
  });
});

describe('self-check on faulty fixtures', () => {
  it('explains each failure, counts it, and exits 1', async () => {
    const vectors = folder('vectors');
    const [first, second] = packageVectors('exec-header.json');
    const wrong = structuredClone(second!);
    (wrong.decoded as { streamTag: number }).streamTag = 99;
    writeJson(join(vectors, 'good.json'), { format: VECTOR_FORMAT, version: VECTOR_VERSION, vectors: [first] });
    writeJson(join(vectors, 'mixed.json'), { format: VECTOR_FORMAT, version: VECTOR_VERSION, vectors: [first, wrong] });
    writeJson(join(vectors, 'other-format.json'), { format: 'something-else', version: 1, vectors: [] });
    writeFileSync(join(vectors, 'not-json.json'), '{"format":');

    const { code, lines } = await selfCheck(['--vectors', vectors, '--schemas', faultySchemas()]);
    expect(lines).toContain('vectors/good.json: 1 passed, 0 failed');
    expect(lines).toContain('vectors/mixed.json: 1 passed, 1 failed');
    expect(lines.find((l) => l.startsWith(`  FAIL ${wrong.id}:`))).toMatch(/"streamTag":0.*expected .*"streamTag":99/);
    expect(lines).toContain('vectors/other-format.json: FAIL "format" must be "mcp-flow-conformance/vectors", found "something-else"');
    expect(lines.find((l) => l.startsWith('vectors/not-json.json: FAIL'))).toMatch(/not valid JSON/);
    expect(lines).toContain('schemas/binding/hello.notification.examples.json: 2 passed, 2 failed');
    expect(lines).toContain('  FAIL valid "not a hello at all": valid example rejected: /method must be equal to constant');
    expect(lines).toContain('  FAIL invalid "claims to be invalid": invalid example accepted');
    // 1 + 1 vectors and 2 examples pass; 1 vector, 2 unreadable files and 2 examples fail.
    expect(lines[lines.length - 1]).toBe('4 passed, 5 failed');
    expect(code).toBe(1);
  });

  it('fails when there are no vector files or no schemas folder', async () => {
    const empty = folder('empty');
    const { code, lines } = await selfCheck(['--vectors', empty, '--schemas', join(scratch, 'absent')]);
    expect(lines).toContain(`vectors: FAIL no *.json vector files in ${empty}`);
    expect(lines.find((l) => l.startsWith('schemas: FAIL'))).toMatch(/does not exist/);
    expect(lines[lines.length - 1]).toBe('0 passed, 2 failed');
    expect(code).toBe(1);
  });

  it('is listed in --help', async () => {
    const io = captureIo();
    await main(['--help'], io);
    expect(io.lines().join('\n')).toMatch(/self-check\s+Decode every test vector/);
  });
});
