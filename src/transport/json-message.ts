// JSON-RPC messages as JSON text for the transports that carry only JSON (Streamable HTTP, stdio):
// the wire layer's JSON codec, with its failures as this layer's typed error or decode result.
import { InvalidJsonError, InvalidUtf8Error } from '../wire/errors.js';
import { jsonCodec } from '../wire/json-codec.js';
import { ConnectionError } from './errors.js';

export function encodeJsonMessage(message: unknown): Uint8Array {
  try {
    return jsonCodec.encode(message);
  } catch (error) {
    throw new ConnectionError('UNENCODABLE_MESSAGE', `message cannot be encoded as JSON: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

/** Why a body did not decode; `jsonRpcCode` is what a receiver answers with. */
export interface BodyDecodeFailure {
  code: 'INVALID_UTF8' | 'INVALID_JSON' | 'EMPTY_BODY';
  message: string;
  jsonRpcCode: number;
}

export type BodyDecodeResult = { ok: true; value: unknown } | { ok: false; failure: BodyDecodeFailure };

/** Decodes a JSON body (an HTTP body, a stdio line) with the wire layer's JSON codec (UTF-8, no BOM, as architecture.md says). */
export function decodeJsonBody(bytes: Uint8Array): BodyDecodeResult {
  if (bytes.every(isJsonWhitespace)) {
    return { ok: false, failure: { code: 'EMPTY_BODY', message: 'body is empty', jsonRpcCode: -32700 } };
  }
  try {
    return { ok: true, value: jsonCodec.decode(bytes) };
  } catch (error) {
    if (error instanceof InvalidUtf8Error || error instanceof InvalidJsonError) {
      const code = error instanceof InvalidUtf8Error ? 'INVALID_UTF8' : 'INVALID_JSON';
      return { ok: false, failure: { code, message: error.message, jsonRpcCode: error.jsonRpcCode } };
    }
    throw error;
  }
}

function isJsonWhitespace(byte: number): boolean {
  return byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d;
}

