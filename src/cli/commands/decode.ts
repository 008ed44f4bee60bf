// `decode`: hex bytes -> control frames, an execution-stream header or a datagram, as pretty JSON.
import type { Argv } from 'yargs';
import { type CliCommand, type CliIo, ExitCode } from '../io.js';
import {
  ControlStreamReader,
  EncodingState,
  InvalidHexError,
  WireError,
  WireOptionError,
  codecFor,
  decodeDatagram,
  decodeExecHeader,
  EXEC_HEADER_BYTES,
  fromHex,
  isEncodingName,
  losesSync,
  resolveMaxMessageSize,
  toHex,
  type EncodingName,
} from '../../wire/index.js';

export type DecodeKind = 'control' | 'exec' | 'datagram';

/** Payload bytes shown in hex/UTF-8 previews. */
const PREVIEW_BYTES = 256;

export const decodeCommand: CliCommand = {
  command: 'decode',
  describe: 'Decode hex bytes as control-stream frames, an execution-stream header or a datagram',
  builder: (yargs: Argv) =>
    yargs
      .option('hex', {
        type: 'string',
        nargs: 1,
        demandOption: true,
        describe: 'The bytes as hex (spaces, newlines, colons and 0x are ignored); "-" reads them from stdin',
      })
      .option('kind', {
        choices: ['control', 'exec', 'datagram'] as const,
        default: 'control' as const,
        describe: 'What the bytes are: control-stream frames, an execution stream, or one datagram',
      })
      .option('encoding', {
        choices: ['json', 'cbor'] as const,
        default: 'json' as const,
        describe: 'Encoding of control-frame bodies and datagram payloads',
      })
      .option('max-message-size', {
        type: 'number',
        describe: 'Largest control-frame body accepted (default 16 MiB)',
      }),
  run: runDecode,
};

const KINDS: readonly string[] = ['control', 'exec', 'datagram'];

async function runDecode(args: Record<string, unknown>, io: CliIo): Promise<number> {
  const kind = args['kind'] as DecodeKind;
  const encoding = args['encoding'] as EncodingName;
  // yargs has already reported a bad choice or a missing --hex (and may still call the handler).
  if (!KINDS.includes(kind) || !isEncodingName(encoding) || typeof args['hex'] !== 'string') return ExitCode.usage;
  let maxMessageSize: number;
  try {
    maxMessageSize = resolveMaxMessageSize(args['maxMessageSize'] as number | undefined);
  } catch (error) {
    if (!(error instanceof WireOptionError)) throw error;
    io.err(`error: --max-message-size: ${String(args['maxMessageSize'])} is not an integer in 1..4294967295`);
    return ExitCode.usage;
  }
  let bytes: Uint8Array;
  try {
    const hexArg = args['hex'];
    bytes = fromHex(hexArg === '-' ? await io.readStdin() : hexArg);
  } catch (error) {
    if (!(error instanceof InvalidHexError)) throw error;
    io.err(`error: --hex: ${error.message}`);
    return ExitCode.usage;
  }
  const report =
    kind === 'exec' ? decodeExec(bytes) : kind === 'datagram' ? decodeOneDatagram(bytes, encoding) : decodeControl(bytes, encoding, maxMessageSize);
  io.out(toPrettyJson(report.output));
  for (const error of report.errors) {
    io.err(`error: ${error.code} (JSON-RPC ${error.jsonRpcCode}, ${error.requirement}): ${error.message}`);
  }
  return report.errors.length > 0 ? ExitCode.failure : ExitCode.ok;
}

interface Report {
  output: Record<string, unknown>;
  errors: WireError[];
}

function decodeControl(bytes: Uint8Array, encoding: EncodingName, maxMessageSize: number): Report {
  const state = new EncodingState();
  state.switchTo(encoding);
  // The encoding is fixed by --encoding: the reader never switches, so a body in the other one is a mismatch.
  const reader = new ControlStreamReader({ state, role: 'server', maxMessageSize });
  const frames: Record<string, unknown>[] = [];
  const errors: WireError[] = [];
  let streamError: WireError | undefined;
  try {
    for (const item of reader.push(bytes)) {
      if (item instanceof WireError && losesSync(item)) {
        // Good frames preceded it in the input; it ends the stream like a thrown framing error.
        streamError = item;
      } else if (item instanceof WireError) {
        errors.push(item);
        frames.push({ error: describeError(item) });
      } else {
        frames.push({ offset: item.frameOffset, length: item.frameLength, message: item.message });
      }
    }
    if (!streamError) reader.end();
  } catch (error) {
    if (!(error instanceof WireError)) throw error;
    streamError = error;
  }
  if (streamError) errors.push(streamError);
  const output: Record<string, unknown> = { kind: 'control', encoding, frames };
  if (streamError) output['error'] = describeError(streamError);
  return { output, errors };
}

function decodeExec(bytes: Uint8Array): Report {
  try {
    const header = decodeExecHeader(bytes);
    const payload = bytes.subarray(EXEC_HEADER_BYTES);
    return { output: { kind: 'exec', ...header, ...preview(payload) }, errors: [] };
  } catch (error) {
    if (!(error instanceof WireError)) throw error;
    return { output: { kind: 'exec', error: describeError(error) }, errors: [error] };
  }
}

function decodeOneDatagram(bytes: Uint8Array, encoding: EncodingName): Report {
  let datagram: ReturnType<typeof decodeDatagram>;
  try {
    datagram = decodeDatagram(bytes);
  } catch (error) {
    if (!(error instanceof WireError)) throw error;
    return { output: { kind: 'datagram', error: describeError(error) }, errors: [error] };
  }
  const { payload, ...header } = datagram;
  const output: Record<string, unknown> = { kind: 'datagram', ...header, ...preview(payload) };
  if (payload.length > 0) {
    try {
      output['payload'] = codecFor(encoding).decode(payload);
      output['payloadEncoding'] = encoding;
    } catch (error) {
      if (!(error instanceof WireError)) throw error;
      // Audio and other binary payloads need not be in the message encoding: show why, not fail.
      output['payloadNotDecoded'] = `${error.code}: ${error.message}`;
    }
  }
  return { output, errors: [] };
}

function preview(payload: Uint8Array): Record<string, unknown> {
  const shown = payload.subarray(0, PREVIEW_BYTES);
  const out: Record<string, unknown> = { payloadLength: payload.length, payloadHex: toHex(shown) };
  if (payload.length > PREVIEW_BYTES) out['payloadPreviewTruncated'] = true;
  try {
    out['payloadUtf8'] = new TextDecoder('utf-8', { fatal: true }).decode(shown);
  } catch {
    // Not text (or cut inside a character): the hex preview stands alone.
  }
  return out;
}

function describeError(error: WireError): Record<string, unknown> {
  const out: Record<string, unknown> = {
    code: error.code,
    jsonRpcCode: error.jsonRpcCode,
    requirement: error.requirement,
    message: error.message,
  };
  if (error.offset !== undefined) out['offset'] = error.offset;
  return out;
}

/**
 * JSON.stringify with the values CBOR can carry but JSON cannot: BigInt as a decimal string,
 * byte strings in CBOR diagnostic notation (h'0102'), non-finite numbers and undefined by name.
 */
export function toPrettyJson(value: unknown): string {
  return JSON.stringify(
    value,
    function replacer(this: unknown, key: string, item: unknown) {
      // `item` has already been through toJSON; read the raw member to see byte strings.
      const raw = key === '' ? item : (this as Record<string, unknown>)[key];
      if (typeof raw === 'bigint') return raw.toString();
      if (raw instanceof Uint8Array) return `h'${toHex(raw)}'`;
      if (typeof raw === 'number' && !Number.isFinite(raw)) return String(raw);
      if (raw === undefined) return 'undefined';
      return item;
    },
    2,
  );
}
