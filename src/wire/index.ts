// The wire layer: bytes <-> messages.
export * from './errors.js';
export * from './frame.js';
export * from './codec.js';
export * from './encoding-state.js';
export * from './control.js';
export * from './exec-header.js';
export * from './datagram.js';
export * from './hex.js';
export * from './request-id.js';
export { isRecord, toWireValue } from './data-model.js';
export { CborInvalidText, CborMap, CborSimpleValue, CborTag, cborItemEnd, diagnostic as cborDiagnostic, halfToNumber } from './cbor-scan.js';
