import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  BINDING_ERROR,
  ERROR_CODES,
  FLOW_ERROR,
  JSONRPC_ERROR,
  errorCodeDefinitions,
  interpretErrorCode,
  nameErrorCode,
  type ErrorLayer,
} from '../../src/protocol/error-codes.js';
import { UnknownLayerError } from '../../src/protocol/errors.js';
import { requirements } from '../../src/protocol/requirements.js';

describe('nameErrorCode', () => {
  it('gives each layer its own meaning of the colliding codes', () => {
    expect(nameErrorCode(-32001, 'flow')).toBe('SESSION_NOT_FOUND');
    expect(nameErrorCode(-32001, 'binding')).toBe('Invalid Stream Reference');
    expect(nameErrorCode(-32001, 'mcp')).toBe('ResourceNotFound');
    expect(nameErrorCode(-32002, 'flow')).toBe('SESSION_EXPIRED');
    expect(nameErrorCode(-32002, 'binding')).toBe('Stream Injection');
    expect(nameErrorCode(-32002, 'mcp')).toBe('Resource not found / ResourceAccessDenied');
    expect(nameErrorCode(-32003, 'binding')).toBe('Encoding Mismatch');
    expect(nameErrorCode(-32004, 'flow')).toBe('VALIDATION_FAILED');
    expect(nameErrorCode(-32000, 'binding')).toBe('Stream Limit Exceeded / Cancelled');
    expect(nameErrorCode(-32007, 'flow')).toBe('NOT_INTERACTIVE');
  });

  it('names the JSON-RPC codes the same in every layer', () => {
    for (const layer of ['jsonrpc', 'mcp', 'flow', 'binding'] as ErrorLayer[]) {
      expect(nameErrorCode(JSONRPC_ERROR.ParseError, layer)).toBe('Parse error');
      expect(nameErrorCode(JSONRPC_ERROR.InvalidParams, layer)).toBe('Invalid params');
    }
  });

  it('falls back to the JSON-RPC range of codes nobody names', () => {
    expect(nameErrorCode(-32050, 'flow')).toBe('Server error (implementation-defined)');
    expect(nameErrorCode(-32500, 'mcp')).toBe('Reserved (JSON-RPC)');
    expect(nameErrorCode(404, 'mcp')).toBe('Application-defined');
    expect(nameErrorCode(1.5, 'mcp')).toContain('not an integer');
  });

  it('throws a typed error for an unknown layer', () => {
    expect(() => nameErrorCode(-32001, 'http' as ErrorLayer)).toThrow(UnknownLayerError);
    expect(() => errorCodeDefinitions('http' as ErrorLayer, -32001)).toThrow(/unknown error-code layer "http"/);
  });
});

describe('interpretErrorCode (profile C-01)', () => {
  it('reads codes by the request they answer', () => {
    expect(interpretErrorCode(-32001, { method: 'interaction.getState' }).name).toBe('SESSION_NOT_FOUND');
    expect(interpretErrorCode(-32002, { method: 'capabilities' }).layer).toBe('flow');
    expect(interpretErrorCode(-32002, { method: 'resources/read' }).layer).toBe('mcp');
    expect(interpretErrorCode(-32002).name).toBe('Stream Injection');
    expect(interpretErrorCode(-32003).name).toBe('Encoding Mismatch');
    expect(interpretErrorCode(-32001, { method: 'tools/call', carriedStreamRef: true }).name).toBe('Invalid Stream Reference');
    expect(interpretErrorCode(-32001, { method: 'tools/call' }).name).toBe('ResourceNotFound');
  });

  it('tells Cancelled from Stream Limit Exceeded by whether the request was cancelled', () => {
    expect(interpretErrorCode(BINDING_ERROR.Cancelled, { method: 'tools/call', cancelled: true }).name).toBe('Cancelled');
    expect(interpretErrorCode(BINDING_ERROR.RequestCancelled, { method: 'tools/call', cancelled: true }).name).toBe('RequestCancelled');
    expect(interpretErrorCode(BINDING_ERROR.StreamLimitExceeded, { method: 'tools/call' }).name).toBe('Stream Limit Exceeded');
  });

  it('keeps JSON-RPC codes JSON-RPC whatever the context', () => {
    expect(interpretErrorCode(-32602, { method: 'interaction.respond' })).toMatchObject({ layer: 'jsonrpc', name: 'Invalid params' });
    expect(interpretErrorCode(-32700)).toMatchObject({ layer: 'jsonrpc', name: 'Parse error' });
  });

  it('reports codes no layer defines with their range', () => {
    expect(interpretErrorCode(-32099, { method: 'interaction.start' })).toMatchObject({ layer: 'flow', definitions: [] });
  });
});

describe('error code tables', () => {
  it('match 000 and 001', () => {
    expect(Object.values(FLOW_ERROR)).toEqual([-32001, -32002, -32003, -32004, -32005, -32006, -32007]);
    expect(BINDING_ERROR.StreamLimitExceeded).toBe(-32000);
    expect(BINDING_ERROR.DatagramNotSupported).toBe(-32004);
  });

  it('cite only requirements that exist', () => {
    const catalog = requirements();
    for (const definition of ERROR_CODES) catalog.assertKnown(definition.requirements);
  });

  it('agree with the wire error table of docs/architecture.md', () => {
    const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
    const architecture = readFileSync(join(root, 'docs', 'architecture.md'), 'utf8');
    const rows = [...architecture.matchAll(/^\| `([A-Z0-9_]+)` \| [^|]+ \| (-3[0-9]{4}) \| ([A-Z]+-[A-Z]+-[0-9]+) \|$/gm)];
    expect(rows.length).toBeGreaterThan(10);
    for (const [, code, jsonRpc, id] of rows) {
      expect(requirements().has(id as string), `${code} cites ${id}`).toBe(true);
      expect(errorCodeDefinitions('binding', Number(jsonRpc)).length, `${code}: ${jsonRpc}`).toBeGreaterThan(0);
    }
  });
});
