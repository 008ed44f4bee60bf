import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { UnknownMethodError } from '../../src/protocol/errors.js';
import {
  BINDING_METHOD,
  CORE_METHOD,
  FLOW_METHOD,
  PROTOCOL_VERSIONS,
  capabilityGate,
  declares,
  findMethod,
  isDefinedIn,
  maySend,
  methodDefinition,
  methodsOf,
  type MethodDirection,
  type MethodKind,
} from '../../src/protocol/methods.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const reference = join(root, '..', 'shared', 'reference', 'mcp-schema');
const haveReference = existsSync(reference);

interface OfficialMethod {
  kind: MethodKind;
  direction: MethodDirection;
}

/** Methods of an official schema, with kind and direction taken from its ClientRequest, ServerRequest, ClientNotification and ServerNotification unions. */
function officialMethods(version: string): Map<string, OfficialMethod> {
  const schema = JSON.parse(readFileSync(join(reference, version, 'schema.json'), 'utf8')) as {
    definitions?: Record<string, Record<string, unknown>>;
    $defs?: Record<string, Record<string, unknown>>;
  };
  const defs = (schema.$defs ?? schema.definitions) as Record<string, { anyOf?: { $ref: string }[]; properties?: { method?: { const?: string } } }>;
  const methodOf = (name: string): string | undefined => defs[name]?.properties?.method?.const;
  const members = (union: string): string[] =>
    (defs[union]?.anyOf ?? []).map((entry) => methodOf(entry.$ref.split('/').pop() as string)).filter((m): m is string => m !== undefined);
  const result = new Map<string, OfficialMethod>();
  for (const [kind, client, server] of [
    ['request', 'ClientRequest', 'ServerRequest'],
    ['notification', 'ClientNotification', 'ServerNotification'],
  ] as const) {
    const fromClient = new Set(members(client));
    const fromServer = new Set(members(server));
    for (const method of new Set([...fromClient, ...fromServer])) {
      const direction: MethodDirection = fromClient.has(method) && fromServer.has(method) ? 'both' : fromClient.has(method) ? 'client-to-server' : 'server-to-client';
      result.set(method, { kind, direction });
    }
  }
  return result;
}

describe('core methods', () => {
  it.skipIf(!haveReference)('match each official schema version: same methods, kinds and directions (needs ../shared/reference)', () => {
    for (const version of PROTOCOL_VERSIONS) {
      const official = officialMethods(version);
      const ours = methodsOf('core', version);
      expect(ours.map((d) => d.method).sort(), version).toEqual([...official.keys()].sort());
      for (const d of ours) expect({ kind: d.kind, direction: d.direction }, `${version} ${d.method}`).toEqual(official.get(d.method));
    }
  });

  it('know in which version each method appeared', () => {
    expect(isDefinedIn(CORE_METHOD.elicitationCreate, '2025-03-26')).toBe(false);
    expect(isDefinedIn(CORE_METHOD.elicitationCreate, '2025-06-18')).toBe(true);
    expect(isDefinedIn(CORE_METHOD.tasksGet, '2025-06-18')).toBe(false);
    expect(isDefinedIn(CORE_METHOD.ping, '2024-11-05')).toBe(true);
    expect(isDefinedIn(FLOW_METHOD.start, '2024-11-05')).toBe(true);
  });

  it('gate methods on the right side\'s capability', () => {
    expect(capabilityGate(CORE_METHOD.toolsCall)).toEqual({ declaredBy: 'server', path: 'tools' });
    expect(capabilityGate(CORE_METHOD.samplingCreateMessage)).toEqual({ declaredBy: 'client', path: 'sampling' });
    expect(capabilityGate(CORE_METHOD.completionComplete, '2024-11-05')).toBeUndefined();
    expect(capabilityGate(CORE_METHOD.completionComplete, '2025-03-26')?.path).toBe('completions');
    expect(capabilityGate(CORE_METHOD.ping)).toBeUndefined();
  });
});

describe('MCP Flow and binding methods', () => {
  it('follow 000\'s directions (profile FLOW-CAP-8, C-11, C-12)', () => {
    for (const m of [FLOW_METHOD.capabilities, FLOW_METHOD.start, FLOW_METHOD.respond, FLOW_METHOD.cancel, FLOW_METHOD.getState]) {
      expect(methodDefinition(m)).toMatchObject({ system: 'flow', kind: 'request', direction: 'client-to-server' });
    }
    for (const m of [FLOW_METHOD.prompt, FLOW_METHOD.continue, FLOW_METHOD.complete]) {
      expect(methodDefinition(m)).toMatchObject({ system: 'flow', kind: 'request', direction: 'server-to-client' });
    }
  });

  it('make the binding\'s $/ methods notifications', () => {
    expect(methodDefinition(BINDING_METHOD.cancel)).toMatchObject({ kind: 'notification', direction: 'client-to-server' });
    expect(methodDefinition(BINDING_METHOD.shutdown)).toMatchObject({ kind: 'notification', direction: 'both' });
    expect(methodDefinition(BINDING_METHOD.streamError)).toMatchObject({ kind: 'notification', direction: 'server-to-client' });
  });

  it('say who may send what', () => {
    expect(maySend(FLOW_METHOD.prompt, 'server')).toBe(true);
    expect(maySend(FLOW_METHOD.prompt, 'client')).toBe(false);
    expect(maySend(CORE_METHOD.ping, 'client')).toBe(true);
    expect(maySend(BINDING_METHOD.shutdown, 'server')).toBe(true);
    expect(maySend(BINDING_METHOD.streamError, 'client')).toBe(false);
  });

  it('throw a typed error for a method nobody defines', () => {
    expect(findMethod('interaction.bogus')).toBeUndefined();
    expect(() => methodDefinition('interaction.bogus')).toThrow(UnknownMethodError);
    expect(() => maySend('tools/run', 'client')).toThrow(/"tools\/run" is not defined/);
  });
});

describe('declares', () => {
  it('needs an object for a feature and true for a flag', () => {
    expect(declares({ tools: {} }, 'tools')).toBe(true);
    expect(declares({ tools: true }, 'tools')).toBe(false);
    expect(declares({ resources: { subscribe: true } }, 'resources.subscribe')).toBe(true);
    expect(declares({ resources: { subscribe: 'yes' } }, 'resources.subscribe')).toBe(false);
    expect(declares({ resources: {} }, 'resources.subscribe')).toBe(false);
    expect(declares(undefined, 'tools')).toBe(false);
    expect(declares({ roots: [] }, 'roots')).toBe(false);
  });
});
