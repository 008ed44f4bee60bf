import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { recordingIo } from '../support/cli.js';
import { cborCodec, encodeDatagram, encodeExecHeader, encodeFrame, jsonCodec, toHex } from '../../src/wire/index.js';

async function decode(args: string[], stdin?: string) {
  const io = recordingIo(stdin);
  const code = await main(['decode', ...args], io);
  return { code, io, json: io.stdout ? (JSON.parse(io.stdout) as Record<string, any>) : undefined };
}

const ping = { jsonrpc: '2.0', id: 43, method: 'ping' };
const frameHex = (message: unknown, codec = jsonCodec) => toHex(encodeFrame(codec.encode(message)));

describe('decode --kind control', () => {
  it('prints each frame with its length and message (JSON by default)', async () => {
    const hex = frameHex(ping) + frameHex({ jsonrpc: '2.0', id: 43, result: {} });
    const { code, json, io } = await decode(['--hex', hex]);
    expect(code).toBe(0);
    expect(io.stderr).toBe('');
    expect(json).toEqual({
      kind: 'control',
      encoding: 'json',
      frames: [
        { offset: 0, length: 41, message: ping },
        { offset: 45, length: 37, message: { jsonrpc: '2.0', id: 43, result: {} } },
      ],
    });
  });

  it('decodes CBOR bodies with --encoding cbor, BigInt as a decimal string and bytes as h\'..\'', async () => {
    const message = { jsonrpc: '2.0', id: 1, result: { big: 2n ** 60n, bytes: new Uint8Array([1, 2]) } };
    const { code, json } = await decode(['--hex', frameHex(message, cborCodec), '--encoding', 'cbor']);
    expect(code).toBe(0);
    expect(json!['frames'][0].message).toEqual({ jsonrpc: '2.0', id: 1, result: { big: '1152921504606846976', bytes: "h'0102'" } });
  });

  it('reads hex from stdin with --hex -', async () => {
    const { code, json } = await decode(['--hex', '-'], `${frameHex(ping).replace(/(..)/g, '$1 ')}\n`);
    expect(code).toBe(0);
    expect(json!['frames'][0].message).toEqual(ping);
  });

  it('reports a per-frame error in place and exits 1', async () => {
    const { code, json, io } = await decode(['--hex', frameHex(ping, cborCodec) + frameHex(ping)]);
    expect(code).toBe(1);
    expect(json!['frames'][0].error).toMatchObject({ code: 'ENCODING_MISMATCH', jsonRpcCode: -32003, requirement: 'WT-ENC-5' });
    expect(json!['frames'][1].message).toEqual(ping);
    expect(io.stderr).toContain('ENCODING_MISMATCH (JSON-RPC -32003, WT-ENC-5)');
  });

  it('reports a framing error with its code, JSON-RPC code and requirement', async () => {
    const { code, json, io } = await decode(['--hex', `${frameHex(ping)}000000ff`, '--max-message-size', '100']);
    expect(code).toBe(1);
    expect(json!['frames']).toHaveLength(1);
    expect(json!['error']).toEqual({
      code: 'FRAME_TOO_LARGE',
      jsonRpcCode: -32600,
      requirement: 'WT-FRAME-3',
      message: 'frame length 255 exceeds the maximum message size 100',
      offset: 45,
    });
    expect(io.stderr).toContain('FRAME_TOO_LARGE');

    const truncated = await decode(['--hex', '0000000a7b7d']);
    expect(truncated.code).toBe(1);
    expect(truncated.json!['error']).toMatchObject({ code: 'FRAME_TRUNCATED_BODY', jsonRpcCode: -32700, requirement: 'WT-FRAME-5' });
  });
});

describe('decode --kind exec', () => {
  it('prints requestId, streamTag and a payload preview', async () => {
    const hex = toHex(encodeExecHeader({ requestId: 42, streamTag: 1 })) + toHex(new TextEncoder().encode('log line'));
    const { code, json } = await decode(['--kind', 'exec', '--hex', hex]);
    expect(code).toBe(0);
    expect(json).toEqual({ kind: 'exec', requestId: 42, streamTag: 1, payloadLength: 8, payloadHex: '6c6f67206c696e65', payloadUtf8: 'log line' });
  });

  it('EXEC_HEADER_TRUNCATED exits 1', async () => {
    const { code, json } = await decode(['--kind', 'exec', '--hex', '0000002a']);
    expect(code).toBe(1);
    expect(json!['error']).toMatchObject({ code: 'EXEC_HEADER_TRUNCATED', jsonRpcCode: -32600, requirement: 'WT-EXEC-1' });
  });
});

describe('decode --kind datagram', () => {
  it('prints the channel name, flags, requestId and the payload decoded when it decodes', async () => {
    const payload = cborCodec.encode({ progress: 5, total: 10 });
    const hex = toHex(encodeDatagram({ channel: 1, requestId: 42, payload }));
    const { code, json } = await decode(['--kind', 'datagram', '--encoding', 'cbor', '--hex', hex]);
    expect(code).toBe(0);
    expect(json).toMatchObject({ kind: 'datagram', channel: 1, channelName: 'progress', flags: 0, requestId: 42, payload: { progress: 5, total: 10 }, payloadEncoding: 'cbor' });
  });

  it('keeps a binary payload as hex and explains why it was not decoded', async () => {
    const { code, json } = await decode(['--kind', 'datagram', '--hex', '02 00 00000007 fffe']);
    expect(code).toBe(0);
    expect(json).toMatchObject({ channelName: 'audio', payloadHex: 'fffe' });
    expect(json!['payloadNotDecoded']).toMatch(/^INVALID_UTF8/);
  });

  it('header errors exit 1 with their codes', async () => {
    for (const [hex, wireCode] of [
      ['0100', 'DATAGRAM_TOO_SHORT'],
      ['00000000002a', 'DATAGRAM_RESERVED_CHANNEL'],
      ['01010000002a', 'DATAGRAM_RESERVED_FLAGS'],
      ['09000000002a', 'DATAGRAM_UNKNOWN_CHANNEL'],
    ]) {
      const { code, json } = await decode(['--kind', 'datagram', '--hex', hex!]);
      expect(code, hex).toBe(1);
      expect(json!['error'].code).toBe(wireCode);
    }
  });
});

describe('decode usage errors exit 2', () => {
  it('odd hex, names what was wrong', async () => {
    const { code, io } = await decode(['--hex', '000']);
    expect(code).toBe(2);
    expect(io.stderr).toMatch(/--hex: invalid hex: odd number of hex digits/);
    expect(io.stdout).toBe('');
  });

  it('non-hex characters, a bad --max-message-size, an unknown --kind, a missing --hex', async () => {
    expect((await decode(['--hex', 'zz'])).io.stderr).toMatch(/"z" at character 0/);
    const bad = await decode(['--hex', '00', '--max-message-size', '0']);
    expect(bad.code).toBe(2);
    expect(bad.io.stderr).toMatch(/--max-message-size: 0 is not an integer in 1\.\.4294967295/);
    expect((await decode(['--hex', '00', '--kind', 'bogus'])).code).toBe(2);
    expect((await decode([])).code).toBe(2);
  });
});
