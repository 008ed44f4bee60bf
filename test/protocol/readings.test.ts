// The accepted readings of C-14 (where `interactive` is advertised) and C-26 (FastWorkflow failures).
import { describe, expect, it } from 'vitest';
import { detectFastWorkflowFailure, statusStatedIn } from '../../src/protocol/fastworkflow-errors.js';
import { findInteractiveAdvertisements } from '../../src/protocol/flow-capability.js';

describe('findInteractiveAdvertisements (C-14, FLOW-CAP-1)', () => {
  const object = { interactive: true, version: '0.1.0', features: { statefulSessions: true } };

  it('finds each of the three accepted places', () => {
    expect(findInteractiveAdvertisements({ experimental: { interactive: true } })).toEqual([{ location: 'experimental', value: true }]);
    expect(findInteractiveAdvertisements({ interactive: object })).toEqual([
      { location: 'top-level', value: object, version: '0.1.0', features: { statefulSessions: true } },
    ]);
    expect(findInteractiveAdvertisements({}, object).map((a) => a.location)).toEqual(['method']);
    expect(findInteractiveAdvertisements({ experimental: { interactive: object }, interactive: true }, object).map((a) => a.location)).toEqual([
      'experimental',
      'top-level',
      'method',
    ]);
  });

  it('finds nothing when interactive is absent or not true', () => {
    expect(findInteractiveAdvertisements({ tools: {} })).toEqual([]);
    expect(findInteractiveAdvertisements({ interactive: false, experimental: { interactive: 'yes' } }, { interactive: false })).toEqual([]);
    expect(findInteractiveAdvertisements(undefined, null)).toEqual([]);
  });
});

describe('detectFastWorkflowFailure (C-26, FW-ERR-1, FW-ERR-4)', () => {
  it('reads the status from each accepted encoding', () => {
    expect(detectFastWorkflowFailure({ jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'busy', data: { httpStatus: 409 } } })).toEqual({
      failed: true,
      status: 409,
      reading: 'data.httpStatus',
    });
    expect(detectFastWorkflowFailure({ jsonrpc: '2.0', id: 1, error: { code: 404, message: 'no session' } })).toEqual({ failed: true, status: 404, reading: 'code' });
    expect(detectFastWorkflowFailure({ jsonrpc: '2.0', id: 1, result: { isError: true, content: [], structuredContent: { httpStatus: 422 } } })).toEqual({
      failed: true,
      status: 422,
      reading: 'isError',
    });
    const text = { type: 'text', text: JSON.stringify({ httpStatus: 504, message: 'timeout' }) };
    expect(detectFastWorkflowFailure({ jsonrpc: '2.0', id: 1, result: { isError: true, content: [text] } })).toMatchObject({ status: 504, reading: 'isError' });
  });

  it("reads a status stated in prose, as fastapi_mcp's isError text has it", () => {
    const fastapiMcp = { type: 'text', text: 'Error calling invoke_agent. Status code: 409. Response: {"detail":"turn in progress"}' };
    expect(detectFastWorkflowFailure({ jsonrpc: '2.0', id: 1, result: { isError: true, content: [fastapiMcp] } })).toEqual({ failed: true, status: 409, reading: 'text' });
    expect(detectFastWorkflowFailure({ jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'HTTP 504: no output in time' } })).toEqual({ failed: true, status: 504, reading: 'text' });
    expect(statusStatedIn('status_code=422')).toBe(422);
    // Numbers that are no failure status are not read as one.
    expect(statusStatedIn('Status code: 200')).toBeUndefined();
    expect(statusStatedIn('listed 404 conversations')).toBeUndefined();
  });

  it('flags failures whose status cannot be recovered', () => {
    expect(detectFastWorkflowFailure({ jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'boom' } })).toEqual({ failed: true, status: undefined, reading: 'error' });
    // A code that is no integer is neither a JSON-RPC code nor an HTTP status.
    expect(detectFastWorkflowFailure({ jsonrpc: '2.0', id: 1, error: { code: 404.5, message: 'odd' } })).toEqual({ failed: true, status: undefined, reading: 'error' });
    expect(detectFastWorkflowFailure({ jsonrpc: '2.0', id: 1, result: { isError: true, content: [{ type: 'text', text: 'not json' }] } })).toEqual({
      failed: true,
      status: undefined,
      reading: 'isError',
    });
  });

  it('treats a result without isError as success', () => {
    expect(detectFastWorkflowFailure({ jsonrpc: '2.0', id: 1, result: { content: [], structuredContent: { status: 'ok' } } })).toEqual({ failed: false });
  });
});
