// Codec benchmark: encode and decode throughput of JSON and CBOR control frames for a few realistic
// message shapes, as time ratios to plain JSON.stringify / JSON.parse of the same messages measured
// in the same run (warm-up, several rounds, median). Run: npx tsx bench/codec.ts
import {
  ControlStreamReader,
  ControlStreamWriter,
  EncodingState,
  type EncodingName,
} from '../src/wire/index.js';

const ROUNDS = 7;
const ROUND_MS = 150;

const smallRequest = {
  jsonrpc: '2.0',
  id: 42,
  method: 'tools/call',
  params: { name: 'read_file', arguments: { path: '/var/log/big.log' } },
};

const toolsListResult = {
  jsonrpc: '2.0',
  id: 2,
  result: {
    tools: Array.from({ length: 200 }, (_, i) => ({
      name: `tool_${i}`,
      title: `Tool number ${i}`,
      description: `Does task ${i}: reads its inputs, validates them and returns a structured result.`,
      inputSchema: {
        type: 'object',
        properties: {
          path: { type: 'string', description: 'File path' },
          limit: { type: 'integer', minimum: 1, maximum: 1000 },
          recursive: { type: 'boolean', default: false },
        },
        required: ['path'],
      },
      annotations: { readOnlyHint: i % 2 === 0, idempotentHint: true },
    })),
    nextCursor: 'c_200',
  },
};

const getStateResult = {
  jsonrpc: '2.0',
  id: 7,
  result: {
    sessionId: 'session_abc123',
    state: 'waiting_user',
    metadata: { createdAt: 1704067200000, lastActivityAt: 1704067300000, toolName: 'booking' },
    history: Array.from({ length: 100 }, (_, turnId) => ({
      turnId,
      prompt: {
        type: 'choice',
        message: `Step ${turnId}: which option do you want?`,
        options: [
          { value: 'a', label: 'Option A' },
          { value: 'b', label: 'Option B' },
          { value: 'c', label: 'Option C' },
        ],
      },
      response: { value: ['a', 'b', 'c'][turnId % 3], comment: turnId % 5 === 0 ? 'looks good' : undefined },
      timestamp: 1704067250000 + turnId * 1000,
    })),
    currentPrompt: { type: 'text', message: 'Any special requests?', placeholder: 'e.g. window seat' },
    accumulatedData: { destination: 'Lisbon', travellers: 2, budget: 1234.5 },
  },
};

const shapes: Array<[string, unknown]> = [
  ['small request (tools/call)', smallRequest],
  ['tools/list result, 200 tools', toolsListResult],
  ['interaction.getState, 100 turns', getStateResult],
];

/** Calls of fn that take about one round. */
function callsPerRound(fn: () => unknown): number {
  let calls = 1;
  for (;;) {
    const start = performance.now();
    for (let i = 0; i < calls; i++) fn();
    if (performance.now() - start >= ROUND_MS / 2) return Math.max(1, Math.round((calls * ROUND_MS) / 2 / (performance.now() - start)));
    calls *= 2;
  }
}

function timeNs(fn: () => unknown, calls: number): number {
  const start = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) fn();
  return Number(process.hrtime.bigint() - start) / calls;
}

/**
 * Median over ROUNDS of (candidate time / baseline time). Each round times the baseline and the
 * candidate back to back, so load from other processes mostly cancels out of the ratio.
 */
function ratio(candidate: () => unknown, baseline: () => unknown): { ratio: number; baselineNs: number } {
  const candidateCalls = callsPerRound(candidate); // doubles as warm-up
  const baselineCalls = callsPerRound(baseline);
  const ratios: number[] = [];
  const baselines: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const base = timeNs(baseline, baselineCalls);
    ratios.push(timeNs(candidate, candidateCalls) / base);
    baselines.push(base);
  }
  return { ratio: median(ratios), baselineNs: median(baselines) };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function writerFor(encoding: EncodingName): ControlStreamWriter {
  const state = new EncodingState();
  state.switchTo(encoding);
  return new ControlStreamWriter({ state });
}

/** A long-lived reader, as on a real control stream; each call pushes one whole frame. */
function frameDecoderFor(encoding: EncodingName, frame: Uint8Array): () => unknown {
  const state = new EncodingState();
  state.switchTo(encoding);
  const reader = new ControlStreamReader({ state, role: 'server' });
  return () => {
    const [item] = reader.push(frame);
    if (item === undefined || item instanceof Error) throw item ?? new Error('frame did not decode');
    return item.message;
  };
}

const rows: string[][] = [];
for (const [label, message] of shapes) {
  const text = JSON.stringify(message);
  const stringify = () => JSON.stringify(message);
  const parse = () => JSON.parse(text);
  const row = [label];
  const sizes: string[] = [];
  let stringifyNs = 0;
  let parseNs = 0;
  for (const encoding of ['json', 'cbor'] as const) {
    const writer = writerFor(encoding);
    const frame = writer.encode(message);
    sizes.push(`${encoding} ${frame.length} B`);
    const encode = ratio(() => writer.encode(message), stringify);
    const decode = ratio(frameDecoderFor(encoding, frame), parse);
    stringifyNs = encode.baselineNs;
    parseNs = decode.baselineNs;
    row.push(`${encode.ratio.toFixed(2)}x`, `${decode.ratio.toFixed(2)}x`);
  }
  row.push(`${(stringifyNs / 1000).toFixed(1)} / ${(parseNs / 1000).toFixed(1)} us`, sizes.join(', '));
  rows.push(row);
}

const header = ['message', 'json encode', 'json decode', 'cbor encode', 'cbor decode', 'baseline stringify / parse', 'frame sizes'];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ');
console.log(`Codec benchmark (time per message as a ratio to JSON.stringify / JSON.parse of the same message; lower is faster)`);
console.log(`Node ${process.version}; per ratio: warm-up, then ${ROUNDS} rounds timing baseline and candidate back to back (~${ROUND_MS / 2} ms each), median\n`);
console.log(line(header));
console.log(line(widths.map((w) => '-'.repeat(w))));
for (const row of rows) console.log(line(row));
