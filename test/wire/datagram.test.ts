import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DATAGRAM_HEADER_BYTES,
  DatagramChannel,
  DatagramReservedChannelError,
  DatagramReservedFlagsError,
  DatagramTooShortError,
  DatagramUnknownChannelError,
  IdOutOfRangeError,
  WireError,
  decodeDatagram,
  encodeDatagram,
  fromHex,
  toHex,
} from '../../src/wire/index.js';
import { captureError } from './arbitraries.js';

describe('datagram header', () => {
  it('matches seed 001 section 2.3: progress for request 42', () => {
    const bytes = encodeDatagram({ channel: DatagramChannel.progress, requestId: 42, payload: fromHex('7b7d') });
    expect(toHex(bytes)).toBe('01000000002a7b7d');
    expect(decodeDatagram(bytes)).toEqual({ channel: 1, channelName: 'progress', flags: 0, requestId: 42, payload: fromHex('7b7d') });
    expect(decodeDatagram(fromHex('02 00 00000001')).channelName).toBe('audio');
    expect(decodeDatagram(fromHex('03 00 ffffffff')).requestId).toBe(2 ** 32 - 1);
    expect(DATAGRAM_HEADER_BYTES).toBe(6);
  });

  it('DATAGRAM_TOO_SHORT below 6 bytes', () => {
    const error = captureError(() => decodeDatagram(fromHex('01 00 0000 00')));
    expect(error).toBeInstanceOf(DatagramTooShortError);
    expect(error).toMatchObject({ code: 'DATAGRAM_TOO_SHORT', length: 5, jsonRpcCode: -32600, requirement: 'WT-DGRAM-1' });
  });

  it('DATAGRAM_RESERVED_CHANNEL for channel 0x00', () => {
    const error = captureError(() => decodeDatagram(fromHex('00 00 0000002a')));
    expect(error).toBeInstanceOf(DatagramReservedChannelError);
    expect(error).toMatchObject({ code: 'DATAGRAM_RESERVED_CHANNEL', jsonRpcCode: -32600, requirement: 'WT-DGRAM-2' });
  });

  it('DATAGRAM_RESERVED_FLAGS for a non-zero flags byte', () => {
    const error = captureError(() => decodeDatagram(fromHex('01 80 0000002a')));
    expect(error).toBeInstanceOf(DatagramReservedFlagsError);
    expect(error).toMatchObject({ code: 'DATAGRAM_RESERVED_FLAGS', flags: 0x80, offset: 1, jsonRpcCode: -32600, requirement: 'WT-DGRAM-3' });
  });

  it('DATAGRAM_UNKNOWN_CHANNEL for 0x04..0xFF', () => {
    for (const channel of [0x04, 0x7f, 0xff]) {
      const error = captureError(() => decodeDatagram(new Uint8Array([channel, 0, 0, 0, 0, 1])));
      expect(error).toBeInstanceOf(DatagramUnknownChannelError);
      expect(error).toMatchObject({ code: 'DATAGRAM_UNKNOWN_CHANNEL', channel, jsonRpcCode: -32600, requirement: 'WT-DGRAM-4' });
    }
  });

  it('encodes malformed headers on request (for negative tests) but not out-of-range fields', () => {
    expect(toHex(encodeDatagram({ channel: 0, flags: 1, requestId: 0, payload: new Uint8Array() }))).toBe('000100000000');
    expect(() => encodeDatagram({ channel: 256, requestId: 0, payload: new Uint8Array() })).toThrow(IdOutOfRangeError);
    expect(() => encodeDatagram({ channel: 1, flags: -1, requestId: 0, payload: new Uint8Array() })).toThrow(IdOutOfRangeError);
    expect(() => encodeDatagram({ channel: 1, requestId: 2 ** 32, payload: new Uint8Array() })).toThrow(IdOutOfRangeError);
  });

  it('property: round trip for defined channels; arbitrary bytes only raise WireErrors', () => {
    fc.assert(
      fc.property(fc.constantFrom(1, 2, 3), fc.nat({ max: 2 ** 32 - 1 }), fc.uint8Array({ maxLength: 32 }), (channel, requestId, payload) => {
        const decoded = decodeDatagram(encodeDatagram({ channel, requestId, payload }));
        expect(decoded).toMatchObject({ channel, flags: 0, requestId, payload });
      }),
      { numRuns: 100 },
    );
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 12 }), (bytes) => {
        try {
          decodeDatagram(bytes);
        } catch (error) {
          expect(error).toBeInstanceOf(WireError);
        }
      }),
      { numRuns: 200 },
    );
  });
});
