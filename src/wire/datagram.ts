// Datagram header (seed 001 section 2.3): channel (1 byte), flags (1 byte, reserved 0x00),
// request id (u32 BE), then the payload.
import {
  DatagramReservedChannelError,
  DatagramReservedFlagsError,
  DatagramTooShortError,
  DatagramUnknownChannelError,
  IdOutOfRangeError,
} from './errors.js';
import { assertU32 } from './exec-header.js';

export const DATAGRAM_HEADER_BYTES = 6;

export const DatagramChannel = { reserved: 0x00, progress: 0x01, audio: 0x02, log: 0x03 } as const;
export type DatagramChannelName = 'progress' | 'audio' | 'log';

const CHANNEL_NAMES: Record<number, DatagramChannelName> = { 0x01: 'progress', 0x02: 'audio', 0x03: 'log' };

export interface Datagram {
  channel: number;
  channelName: DatagramChannelName;
  flags: number;
  requestId: number;
  payload: Uint8Array;
}

/** The name of a defined channel; throws for 0x00 and 0x04..0xFF. */
export function datagramChannelName(channel: number): DatagramChannelName {
  if (channel === DatagramChannel.reserved) throw new DatagramReservedChannelError();
  const name = CHANNEL_NAMES[channel];
  if (name === undefined) throw new DatagramUnknownChannelError(channel);
  return name;
}

/**
 * Builds a datagram. The channel and flags must be bytes (IdOutOfRangeError otherwise); the
 * reserved channel and non-zero flags are encoded as given, so tests can send malformed datagrams.
 */
export function encodeDatagram(d: { channel: number; flags?: number; requestId: number; payload: Uint8Array }): Uint8Array {
  const flags = d.flags ?? 0;
  assertByte('channel', d.channel);
  assertByte('flags', flags);
  assertU32('requestId', d.requestId);
  const bytes = new Uint8Array(DATAGRAM_HEADER_BYTES + d.payload.length);
  bytes[0] = d.channel;
  bytes[1] = flags;
  new DataView(bytes.buffer).setUint32(2, d.requestId, false);
  bytes.set(d.payload, DATAGRAM_HEADER_BYTES);
  return bytes;
}

/** Parses a datagram; the payload is a view into `bytes`. */
export function decodeDatagram(bytes: Uint8Array): Datagram {
  if (bytes.length < DATAGRAM_HEADER_BYTES) throw new DatagramTooShortError(bytes.length);
  const channel = bytes[0]!;
  const flags = bytes[1]!;
  const channelName = datagramChannelName(channel);
  if (flags !== 0) throw new DatagramReservedFlagsError(flags);
  const requestId = new DataView(bytes.buffer, bytes.byteOffset + 2, 4).getUint32(0, false);
  return { channel, channelName, flags, requestId, payload: bytes.subarray(DATAGRAM_HEADER_BYTES) };
}

function assertByte(field: string, value: unknown): asserts value is number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 0xff) {
    throw new IdOutOfRangeError(field, value, '0..255');
  }
}
