// The mock server's MCP Flow extension: `flowExtension(options)` plugs the engine into the server core.
import type { RequestContext, ServerExtension, ServerSessionContext } from '../extension.js';
import { FLOW_METHOD } from '../../../protocol/methods.js';
import { FlowEngine } from './engine.js';
import { FlowOptionsError } from './errors.js';
import { FLOW_FAULTS } from './faults.js';
import { resolveOptions, type FlowExtensionOptions } from './options.js';
import { wizardTools } from './tools.js';
import { loadShippedWizards, type Wizard } from './wizard.js';

export interface FlowExtension extends ServerExtension {
  /** The engine (sessions, settled()); for tests and diagnostics. */
  readonly engine: FlowEngine;
}

/** The MCP Flow engine as a ServerExtension. */
export function flowExtension(options: FlowExtensionOptions = {}): FlowExtension {
  const resolved = resolveOptions(options);
  const wizards = new Map<string, Wizard>();
  for (const wizard of options.wizards ?? loadShippedWizards()) {
    if (wizards.has(wizard.name)) {
      throw new FlowOptionsError('wizards', `two wizards are named ${JSON.stringify(wizard.name)} (${wizards.get(wizard.name)?.source} and ${wizard.source})`);
    }
    wizards.set(wizard.name, wizard);
  }
  const engine = new FlowEngine(resolved, wizards);
  const wrong = (method: string) => async (params: unknown, ctx: RequestContext) => engine.wrongDirection(method, params, ctx);
  return {
    name: 'mcp-flow',
    engine,
    capabilities: (ctx: ServerSessionContext) => engine.initializeCapabilities(ctx.faults),
    requests: {
      [FLOW_METHOD.capabilities]: async (params, ctx) => engine.capabilities(params, ctx),
      [FLOW_METHOD.start]: (params, ctx) => engine.start(params, ctx),
      [FLOW_METHOD.respond]: (params, ctx) => engine.respond(params, ctx),
      [FLOW_METHOD.cancel]: (params, ctx) => engine.cancel(params, ctx),
      [FLOW_METHOD.getState]: (params, ctx) => engine.getState(params, ctx),
      [FLOW_METHOD.prompt]: wrong(FLOW_METHOD.prompt),
      [FLOW_METHOD.continue]: wrong(FLOW_METHOD.continue),
      [FLOW_METHOD.complete]: wrong(FLOW_METHOD.complete),
    },
    tools: wizardTools(wizards.values(), resolved.validation),
    faults: FLOW_FAULTS,
    onSessionEnd: (ctx) => engine.endConnection(ctx.connectionId),
  };
}

export { FlowEngine, FLOW_VERSION, LIMIT_EXCEEDED, TIMEOUT_WARNING_LOGGER, type LiveSession } from './engine.js';
export { FLOW_FAULTS } from './faults.js';
export { systemClock, DEFAULT_LIMITS, DEFAULT_TIMEOUT_MS, flowReadings, type FlowClock, type FlowExtensionOptions, type FlowLimits, type ReadingsTransport } from './options.js';
export { WizardFileError, FlowOptionsError } from './errors.js';
export { loadWizard, parseWizard, loadShippedWizards, shippedWizardsDir, type Wizard, type WizardStep } from './wizard.js';
export { renderExport, type ExportPayload } from './session.js';
export { validateAnswer, type EnginePrompt, type FileAnswer } from './answers.js';
export { encodeToken, decodeToken, canonicalJson, TokenRejectedError } from './tokens.js';
export { runWizardOnce, inputSchemaOf } from './tools.js';
