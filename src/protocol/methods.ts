// Method names of every system, with who sends them and whether they expect an answer.
import { UnknownMethodError } from './errors.js';

export const PROTOCOL_VERSIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'] as const;
export type ProtocolVersion = (typeof PROTOCOL_VERSIONS)[number];
export const LATEST_PROTOCOL_VERSION: ProtocolVersion = '2025-11-25';

export function isProtocolVersion(value: unknown): value is ProtocolVersion {
  return typeof value === 'string' && (PROTOCOL_VERSIONS as readonly string[]).includes(value);
}

/** core: MCP (002/003 and the official schemas); flow: MCP Flow (000); binding: WebTransport binding (001). */
export type MethodSystem = 'core' | 'flow' | 'binding';
/** A request expects a response; a notification never gets one. */
export type MethodKind = 'request' | 'notification';
export type MethodDirection = 'client-to-server' | 'server-to-client' | 'both';

/** The capability a method needs: declared by the server (`tools`) or by the client (`sampling`). */
export interface CapabilityGate {
  readonly declaredBy: 'server' | 'client';
  /** Dotted path inside `capabilities`, e.g. `resources.subscribe`. */
  readonly path: string;
  /** First protocol version in which the gate exists (completions were ungated in 2024-11-05). */
  readonly since?: ProtocolVersion;
}

export interface MethodDefinition {
  readonly method: string;
  readonly system: MethodSystem;
  readonly kind: MethodKind;
  readonly direction: MethodDirection;
  /** Core only: the first protocol version that defines the method. */
  readonly since?: ProtocolVersion;
  readonly capability?: CapabilityGate;
}

export const CORE_METHOD = {
  initialize: 'initialize',
  initialized: 'notifications/initialized',
  ping: 'ping',
  cancelled: 'notifications/cancelled',
  progress: 'notifications/progress',
  resourcesList: 'resources/list',
  resourcesTemplatesList: 'resources/templates/list',
  resourcesRead: 'resources/read',
  resourcesSubscribe: 'resources/subscribe',
  resourcesUnsubscribe: 'resources/unsubscribe',
  resourcesListChanged: 'notifications/resources/list_changed',
  resourcesUpdated: 'notifications/resources/updated',
  promptsList: 'prompts/list',
  promptsGet: 'prompts/get',
  promptsListChanged: 'notifications/prompts/list_changed',
  toolsList: 'tools/list',
  toolsCall: 'tools/call',
  toolsListChanged: 'notifications/tools/list_changed',
  loggingSetLevel: 'logging/setLevel',
  loggingMessage: 'notifications/message',
  completionComplete: 'completion/complete',
  samplingCreateMessage: 'sampling/createMessage',
  rootsList: 'roots/list',
  rootsListChanged: 'notifications/roots/list_changed',
  elicitationCreate: 'elicitation/create',
  elicitationComplete: 'notifications/elicitation/complete',
  tasksGet: 'tasks/get',
  tasksResult: 'tasks/result',
  tasksList: 'tasks/list',
  tasksCancel: 'tasks/cancel',
  tasksStatus: 'notifications/tasks/status',
} as const;

export const FLOW_METHOD = {
  capabilities: 'capabilities',
  start: 'interaction.start',
  prompt: 'interaction.prompt',
  respond: 'interaction.respond',
  continue: 'interaction.continue',
  complete: 'interaction.complete',
  cancel: 'interaction.cancel',
  getState: 'interaction.getState',
} as const;

export const BINDING_METHOD = {
  cancel: '$/cancel',
  shutdown: '$/shutdown',
  streamError: '$/streamError',
} as const;

function core(
  method: string,
  kind: MethodKind,
  direction: MethodDirection,
  since: ProtocolVersion,
  capability?: CapabilityGate,
): MethodDefinition {
  return Object.freeze(capability ? { method, system: 'core', kind, direction, since, capability } : { method, system: 'core', kind, direction, since });
}

const server = (path: string, since?: ProtocolVersion): CapabilityGate => (since ? { declaredBy: 'server', path, since } : { declaredBy: 'server', path });
const client = (path: string): CapabilityGate => ({ declaredBy: 'client', path });
const V1 = '2024-11-05';

export const METHODS: readonly MethodDefinition[] = Object.freeze([
  core(CORE_METHOD.initialize, 'request', 'client-to-server', V1),
  core(CORE_METHOD.initialized, 'notification', 'client-to-server', V1),
  core(CORE_METHOD.ping, 'request', 'both', V1),
  core(CORE_METHOD.cancelled, 'notification', 'both', V1),
  core(CORE_METHOD.progress, 'notification', 'both', V1),
  core(CORE_METHOD.resourcesList, 'request', 'client-to-server', V1, server('resources')),
  core(CORE_METHOD.resourcesTemplatesList, 'request', 'client-to-server', V1, server('resources')),
  core(CORE_METHOD.resourcesRead, 'request', 'client-to-server', V1, server('resources')),
  core(CORE_METHOD.resourcesSubscribe, 'request', 'client-to-server', V1, server('resources.subscribe')),
  core(CORE_METHOD.resourcesUnsubscribe, 'request', 'client-to-server', V1, server('resources.subscribe')),
  core(CORE_METHOD.resourcesListChanged, 'notification', 'server-to-client', V1, server('resources.listChanged')),
  core(CORE_METHOD.resourcesUpdated, 'notification', 'server-to-client', V1, server('resources.subscribe')),
  core(CORE_METHOD.promptsList, 'request', 'client-to-server', V1, server('prompts')),
  core(CORE_METHOD.promptsGet, 'request', 'client-to-server', V1, server('prompts')),
  core(CORE_METHOD.promptsListChanged, 'notification', 'server-to-client', V1, server('prompts.listChanged')),
  core(CORE_METHOD.toolsList, 'request', 'client-to-server', V1, server('tools')),
  core(CORE_METHOD.toolsCall, 'request', 'client-to-server', V1, server('tools')),
  core(CORE_METHOD.toolsListChanged, 'notification', 'server-to-client', V1, server('tools.listChanged')),
  core(CORE_METHOD.loggingSetLevel, 'request', 'client-to-server', V1, server('logging')),
  core(CORE_METHOD.loggingMessage, 'notification', 'server-to-client', V1, server('logging')),
  core(CORE_METHOD.completionComplete, 'request', 'client-to-server', V1, server('completions', '2025-03-26')),
  core(CORE_METHOD.samplingCreateMessage, 'request', 'server-to-client', V1, client('sampling')),
  core(CORE_METHOD.rootsList, 'request', 'server-to-client', V1, client('roots')),
  core(CORE_METHOD.rootsListChanged, 'notification', 'client-to-server', V1, client('roots.listChanged')),
  core(CORE_METHOD.elicitationCreate, 'request', 'server-to-client', '2025-06-18', client('elicitation')),
  core(CORE_METHOD.elicitationComplete, 'notification', 'server-to-client', '2025-11-25', client('elicitation')),
  core(CORE_METHOD.tasksGet, 'request', 'both', '2025-11-25'),
  core(CORE_METHOD.tasksResult, 'request', 'both', '2025-11-25'),
  core(CORE_METHOD.tasksList, 'request', 'both', '2025-11-25'),
  core(CORE_METHOD.tasksCancel, 'request', 'both', '2025-11-25'),
  core(CORE_METHOD.tasksStatus, 'notification', 'both', '2025-11-25'),
  { method: FLOW_METHOD.capabilities, system: 'flow', kind: 'request', direction: 'client-to-server' },
  { method: FLOW_METHOD.start, system: 'flow', kind: 'request', direction: 'client-to-server' },
  { method: FLOW_METHOD.respond, system: 'flow', kind: 'request', direction: 'client-to-server' },
  { method: FLOW_METHOD.cancel, system: 'flow', kind: 'request', direction: 'client-to-server' },
  { method: FLOW_METHOD.getState, system: 'flow', kind: 'request', direction: 'client-to-server' },
  { method: FLOW_METHOD.prompt, system: 'flow', kind: 'request', direction: 'server-to-client' },
  // 000 documents no response for interaction.continue; the profile makes it a request answered
  // like interaction.prompt (docs/profile.md C-11).
  { method: FLOW_METHOD.continue, system: 'flow', kind: 'request', direction: 'server-to-client' },
  { method: FLOW_METHOD.complete, system: 'flow', kind: 'request', direction: 'server-to-client' },
  { method: BINDING_METHOD.cancel, system: 'binding', kind: 'notification', direction: 'client-to-server' },
  { method: BINDING_METHOD.shutdown, system: 'binding', kind: 'notification', direction: 'both' },
  { method: BINDING_METHOD.streamError, system: 'binding', kind: 'notification', direction: 'server-to-client' },
] satisfies MethodDefinition[]);

const BY_NAME = new Map(METHODS.map((d) => [d.method, d]));

/** The definition of a method, or undefined when no system defines it. */
export function findMethod(method: string): MethodDefinition | undefined {
  return BY_NAME.get(method);
}

/** The definition of a method; throws UnknownMethodError when no system defines it. */
export function methodDefinition(method: string): MethodDefinition {
  const definition = BY_NAME.get(method);
  if (definition === undefined) throw new UnknownMethodError(method);
  return definition;
}

/** Methods of one system; for core, only those defined in `version` when it is given. */
export function methodsOf(system: MethodSystem, version?: ProtocolVersion): MethodDefinition[] {
  return METHODS.filter((d) => d.system === system && (version === undefined || definedIn(d, version)));
}

function definedIn(definition: MethodDefinition, version: ProtocolVersion): boolean {
  return definition.since === undefined || PROTOCOL_VERSIONS.indexOf(definition.since) <= PROTOCOL_VERSIONS.indexOf(version);
}

/** Whether a core method exists in a protocol version (CORE-LIFE-11); non-core methods always do. */
export function isDefinedIn(method: string, version: ProtocolVersion): boolean {
  return definedIn(methodDefinition(method), version);
}

/** Whether a peer in `role` may send this method (its direction allows it). */
export function maySend(method: string, role: 'client' | 'server'): boolean {
  const { direction } = methodDefinition(method);
  return direction === 'both' || direction === (role === 'client' ? 'client-to-server' : 'server-to-client');
}

/** The capability gate of a method in a protocol version, if it has one there. */
export function capabilityGate(method: string, version: ProtocolVersion = LATEST_PROTOCOL_VERSION): CapabilityGate | undefined {
  const gate = methodDefinition(method).capability;
  if (gate === undefined) return undefined;
  if (gate.since !== undefined && PROTOCOL_VERSIONS.indexOf(gate.since) > PROTOCOL_VERSIONS.indexOf(version)) return undefined;
  return gate;
}

/**
 * Whether a capabilities object declares a gate's path: the feature object must be present
 * (`"tools": {}`), and a sub-flag (`resources.subscribe`) must be `true`.
 */
export function declares(capabilities: unknown, path: string): boolean {
  let node: unknown = capabilities;
  const parts = path.split('.');
  for (const [index, part] of parts.entries()) {
    if (typeof node !== 'object' || node === null || Array.isArray(node)) return false;
    node = (node as Record<string, unknown>)[part];
    if (index === parts.length - 1) return parts.length === 1 ? typeof node === 'object' && node !== null && !Array.isArray(node) : node === true;
  }
  return false;
}
