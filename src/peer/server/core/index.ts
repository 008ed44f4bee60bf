// The mock server's core features as one ServerExtension: built-in tools, resources (paginated,
// subscribable, one template), prompts and completions. Each feature can be left undeclared
// (its handlers stay registered, so the session's capability gate is what refuses them).
import { PROTOCOL_VERSIONS } from '../../../protocol/methods.js';
import type { ServerExtension, ServerTool } from '../extension.js';
import { promptRequests } from './prompts.js';
import type { CoreReadings } from './readings.js';
import { resourceFeature } from './resources.js';
import { CORE_TOOLS, elicitTool, sampleTool } from './tools.js';

/** The built-in tools that ask the client something while they run. */
const ASKING_TOOLS: readonly ServerTool[] = [sampleTool, elicitTool];

export interface CoreFeatureOptions {
  /** Offer the built-in tools. Default true. */
  tools?: boolean;
  /** Offer the built-in tools that ask the client something (sample, elicit). Default true. */
  askingTools?: boolean;
  /** Declare resources (with subscribe). Default true. */
  resources?: boolean;
  /** Declare resources.subscribe. Default true. */
  subscribe?: boolean;
  /** Declare prompts. Default true. */
  prompts?: boolean;
  /** Declare completions (from 2025-03-26; earlier versions have no such capability). Default true. */
  completions?: boolean;
  /** Resources per resources/list page. Default 10. */
  pageSize?: number;
  /** Touch mock://counter on this interval (notifying subscribers). Default: only the touch tool does. */
  updateIntervalMs?: number;
  /** The readings of the profile the features take (createMockServer passes the session's). Default: the recommended ones. */
  readings?: CoreReadings;
}

export function createCoreExtension(options: CoreFeatureOptions = {}): ServerExtension {
  const resources = resourceFeature({
    pageSize: options.pageSize ?? 10,
    ...(options.updateIntervalMs !== undefined ? { updateIntervalMs: options.updateIntervalMs } : {}),
    ...(options.readings !== undefined ? { readings: options.readings } : {}),
  });
  const builtIn = options.askingTools === false ? CORE_TOOLS.filter((tool) => !ASKING_TOOLS.includes(tool)) : CORE_TOOLS;
  const tools: ServerTool[] = options.tools === false ? [] : [...builtIn, resources.touchTool];
  return {
    name: 'core',
    tools,
    requests: { ...resources.requests, ...promptRequests(options.readings) },
    capabilities(ctx) {
      const capabilities: Record<string, unknown> = {};
      if (options.resources !== false) capabilities['resources'] = { subscribe: options.subscribe !== false, listChanged: false };
      if (options.prompts !== false) capabilities['prompts'] = { listChanged: false };
      const modern = PROTOCOL_VERSIONS.indexOf(ctx.protocolVersion as (typeof PROTOCOL_VERSIONS)[number]) >= PROTOCOL_VERSIONS.indexOf('2025-03-26');
      if (options.completions !== false && modern) capabilities['completions'] = {};
      return capabilities;
    },
    onSessionEnd(ctx) {
      resources.end(ctx);
    },
  };
}
