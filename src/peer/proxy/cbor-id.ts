// WT-ENC-13: in a CBOR body an integral request id is a CBOR integer, never a float. The decoded
// message cannot tell 7 from 7.0, so the body's top-level map is read for the encoding of "id".
import { cborItemEnd } from '../../wire/index.js';

const ID_KEY = 0x62; // text string of length 2
const FLOAT_HEADS = new Set([0xf9, 0xfa, 0xfb]);

/** Whether the body is a CBOR map whose "id" member is encoded as a half, single or double float. */
export function cborIdIsFloat(body: Uint8Array): boolean {
  const head = body[0];
  if (head === undefined || head >> 5 !== 5) return false;
  const info = head & 0x1f;
  let count: number;
  let offset = 1;
  if (info < 24) count = info;
  else if (info === 24) {
    count = body[1] ?? 0;
    offset = 2;
  } else if (info === 25) {
    count = ((body[1] ?? 0) << 8) | (body[2] ?? 0);
    offset = 3;
  } else return false;
  for (let pair = 0; pair < count; pair++) {
    const keyEnd = cborItemEnd(body, offset);
    if (keyEnd === undefined) return false;
    const isId = keyEnd - offset === 3 && body[offset] === ID_KEY && body[offset + 1] === 0x69 && body[offset + 2] === 0x64;
    if (isId) return FLOAT_HEADS.has(body[keyEnd] ?? -1);
    const valueEnd = cborItemEnd(body, keyEnd);
    if (valueEnd === undefined) return false;
    offset = valueEnd;
  }
  return false;
}
