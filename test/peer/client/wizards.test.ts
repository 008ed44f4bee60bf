// The mock client completes every shipped wizard of the mock server, scripted, on every transport,
// with one validation-failing value per wizard answered again after the rejection; over
// WebTransport the exported file and a download arrive on execution streams, length verified.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMockClient, scriptedAnswerer, type AskState, type MockClient } from '../../../src/peer/client/index.js';
import { downloadByte } from '../../../src/peer/server/core/tools.js';
import { DEADLINE, mockServerTarget } from './support.js';

const SHIPPED = [
  {
    wizard: 'booking',
    answers: ['Lisbon', '2030-13-01', '2030-05-17', 2, 'first', true, true],
    data: { destination: 'Lisbon', date: '2030-05-17', travellers: 2, class: 'first', lounge: true, reference: 'BK-Lisbon-2030-05-17' },
  },
  {
    wizard: 'registration',
    answers: ['Eve', 'not-an-email', 'eve@example.com', 33, 'pro', 'Acme', false, null, { theme: 'dark' }],
    data: { user: { name: 'Eve', email: 'eve@example.com', age: 33 }, plan: 'pro', company: 'Acme', newsletter: false, preferences: { theme: 'dark' } },
  },
  {
    wizard: 'file-export',
    answers: [0, 100, 'out', true],
    data: { fileName: 'out.csv', rows: 100, mimeType: 'text/csv' },
  },
] as const;

/** A scripted answerer that also records what each ask was told. */
function recordingAnswerer(values: readonly unknown[]) {
  const inner = scriptedAnswerer(values);
  const asks: { prompt: Record<string, unknown>; state: AskState }[] = [];
  return {
    asks,
    ask(prompt: Record<string, unknown>, state: AskState) {
      asks.push({ prompt, state: structuredClone(state) });
      return inner.ask(prompt, state);
    },
  };
}

describe.each(['wt', 'http', 'stdio'] as const)('every shipped wizard over %s', (transport) => {
  let target: Awaited<ReturnType<typeof mockServerTarget>>;
  let client: MockClient;

  beforeAll(async () => {
    target = await mockServerTarget(transport);
    client = await connectMockClient(target.target, { requestTimeoutMs: DEADLINE.timeoutMs });
    const init = await client.initialize();
    expect(init.encoding).toBe(transport === 'wt' ? 'cbor' : 'json');
    expect((await client.listTools()).map((tool) => tool.name)).toEqual(expect.arrayContaining(['booking', 'registration', 'file-export', 'download']));
  });

  afterAll(async () => {
    await client?.close();
    await target?.close();
  });

  it.each(SHIPPED)('completes $wizard, answering the rejected value again', async ({ wizard, answers, data }) => {
    const answerer = recordingAnswerer(answers);
    const outcome = await client.interact(wizard, undefined, answerer);
    expect(outcome.failures).toEqual([]);
    expect(outcome.status).toBe('completed');
    expect(outcome.answers).toBe(answers.length);
    expect(outcome.rejections).toBe(1);
    expect(outcome.result).toMatchObject({ success: true, data });
    expect(outcome.finalResult).toEqual(outcome.result?.['data']);
    // The value after the rejected one was asked as attempt 2, with the server's reason.
    const retry = answerer.asks.find((ask) => ask.state.attempt === 2);
    expect(retry?.state.rejected?.message).toEqual(expect.any(String));
    expect(answerer.asks.filter((ask) => ask.state.attempt === 2)).toHaveLength(1);
    if (wizard === 'file-export') {
      const file = (outcome.result?.['data'] as { file: Record<string, unknown> }).file;
      const csv = 'id,value\n' + Array.from({ length: 100 }, (_, i) => `${i + 1},value-${i + 1}\n`).join('');
      if (transport === 'wt') {
        // C-32: the file came on an execution stream of the completing interaction.respond, length verified.
        expect(file).not.toHaveProperty('content');
        expect(outcome.streams).toHaveLength(1);
        expect(outcome.streams[0]).toMatchObject({ complete: true, bytes: Buffer.byteLength(csv), expectedBytes: file['size'] });
        expect(Buffer.from(outcome.streams[0]!.data!).toString('utf8')).toBe(csv);
      } else {
        expect(file['content']).toBe(csv);
        expect(outcome.streams).toEqual([]);
      }
    }
  });

  it('downloads with tools/call (execution stream over WebTransport, embedded blob elsewhere)', async () => {
    const bytes = 200_000;
    const written: Uint8Array[] = [];
    const sink = new WritableStream<Uint8Array>({ write: (chunk) => void written.push(chunk.slice()) });
    const outcome = await client.callTool('download', { bytes }, { download: () => sink });
    expect(outcome.failures).toEqual([]);
    expect(outcome.ok).toBe(true);
    const payload = transport === 'wt' ? Buffer.concat(written) : Buffer.from((outcome.result?.['content'] as { resource: { blob: string } }[])[0]!.resource.blob, 'base64');
    expect(payload.byteLength).toBe(bytes);
    expect(payload.every((byte, i) => byte === downloadByte(i))).toBe(true);
    if (transport === 'wt') expect(outcome.streams).toEqual([expect.objectContaining({ streamTag: 1, bytes, complete: true })]);
  });
});
