// What a receiver can read as a JSON-RPC request id, the one definition every transport and the
// mock server's session use: a string, or an integer that JSON and CBOR carry exactly (at most
// 2^53 - 1 in magnitude). That is MCP's RequestId ("string | integer"); JSON-RPC 2.0 §4 allows a
// fraction too ("Numbers SHOULD NOT contain fractional parts"), but no MCP peer can name its
// request with one, and an integer past 2^53 no longer names one exactly. A request whose id is
// anything else is answered with id null (JSON-RPC 2.0 §5: "If there was an error in detecting the
// id in the Request object ... it MUST be Null").

export type ReadableId = string | number;

export function isReadableId(value: unknown): value is ReadableId {
  return typeof value === 'string' || (typeof value === 'number' && Number.isSafeInteger(value));
}
