// The vectors agree with the schemas: messages.json holds every valid example of every message
// schema, and the hand-built messages and datagram payloads are valid profile messages.
import { describe, expect, it } from 'vitest';
import { SchemaRegistry } from '../../src/schema/index.js';
import { fromVectorValue, type VectorValue } from '../../src/vectors/vector-file.js';
import { vectorFiles } from './committed.js';

const registry = SchemaRegistry.load();
const MESSAGE_KINDS = new Set(['request', 'result', 'notification', 'error']);

describe('messages.json', () => {
  it('has a JSON and a CBOR vector for every valid example of every message schema', () => {
    const expected: string[] = [];
    const index = new Map<string, number>();
    for (const example of registry.examples()) {
      if (!example.valid || !MESSAGE_KINDS.has(registry.get(example.schemaId).meta.kind)) continue;
      const i = index.get(example.file) ?? 0;
      index.set(example.file, i + 1);
      expected.push(`${example.file}#/valid/${i}`);
    }
    const vectors = vectorFiles['messages.json']!.vectors;
    const byEncoding = (suffix: string) => vectors.filter((v) => v.id.endsWith(suffix)).map((v) => v.source).sort();
    expect(expected.length).toBeGreaterThan(0);
    expect(byEncoding('/json')).toEqual([...expected].sort());
    expect(byEncoding('/cbor')).toEqual([...expected].sort());
  });

  it('frames each example instance unchanged', () => {
    const bySource = new Map<string, unknown[]>();
    for (const example of registry.examples()) {
      if (example.valid) bySource.set(example.file, [...(bySource.get(example.file) ?? []), example.instance]);
    }
    for (const vector of vectorFiles['messages.json']!.vectors.filter((v) => v.decoded !== undefined)) {
      const [file, pointer] = vector.source!.split('#/valid/');
      expect((vector.decoded as VectorValue[])[0], vector.id).toEqual(bySource.get(file!)![Number(pointer)]);
    }
  });
});

describe('control.json messages', () => {
  const messages = vectorFiles['control.json']!.vectors.flatMap((v) =>
    (v.decoded as VectorValue[]).map((m, i) => [`${v.id} frame ${i}`, fromVectorValue(m)] as const),
  );
  it.each(messages)('%s is valid under the schema the registry identifies for it', (_name, message) => {
    const [best] = registry.identify(message);
    expect(best, 'no schema for this message').toBeDefined();
    expect(best!.issues).toEqual([]);
  });
});

describe('datagram.json payloads', () => {
  const schemaFor: Record<number, string> = { 1: 'binding/datagram-progress.payload', 3: 'binding/datagram-log.payload' };
  const structured = vectorFiles['datagram.json']!.vectors.filter((v) => (v.decoded as { channel: number }).channel !== 2);
  it.each(structured.map((v) => [v.id, v] as const))('%s carries a valid payload for its channel', (_id, vector) => {
    const { channel, payload } = vector.decoded as { channel: number; payload: VectorValue };
    expect(registry.validate(schemaFor[channel]!, fromVectorValue(payload))).toEqual([]);
  });
});
