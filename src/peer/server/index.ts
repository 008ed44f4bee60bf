// The reference mock server's public entry: start it on a transport (startMockServer), or build
// one and serve connections yourself (createMockServer), with the parts it is assembled from.
export {
  startMockServer,
  mockServerFaultCatalog,
  describeMessage,
  MockServerOptionError,
  FaultNotServedError,
  MOCK_TRANSPORTS,
  type StartMockServerOptions,
  type RunningMockServer,
  type MockServerLimits,
  type MockTransport,
  type FaultLayer,
  type CatalogEntry,
} from './start.js';
export { pipedMockServer, type PipedMockServerOptions } from './piped.js';
export { describeServer } from './describe.js';
export { MOCK_READINGS, isMockReadings, type MockReadings } from './readings.js';
export { createMockServer, MockServerConfigError, type MockServer, type MockServerOptions } from './server.js';
export { CORE_FAULTS, CORE_FAULT, faultCatalog, activeFaults } from './faults.js';
export { ALTERNATE_CORE_READINGS, RECOMMENDED_CORE_READINGS, CoreReadingsError, resolveCoreReadings, type CoreReadings } from './core/readings.js';
export {
  ActiveFaults,
  MockServerError,
  UnknownFaultError,
  DuplicateFaultError,
  RpcError,
  type FaultDefinition,
  type ServerExtension,
  type ServerTool,
  type ToolResult,
  type RequestContext,
  type ServerSessionContext,
} from './extension.js';
export { flowExtension, loadWizard, loadShippedWizards, FLOW_FAULTS, WizardFileError, type FlowExtensionOptions, type Wizard } from './flow/index.js';
export { fastWorkflowExtension, FASTWORKFLOW_FAULTS, type FastWorkflowOptions } from './fastworkflow/index.js';
export { webTransportBinding, type WebTransportBinding, type WebTransportBindingOptions } from './binding.js';
export { WEBTRANSPORT_FAULTS, WEBTRANSPORT_FAULT } from './binding-faults.js';
export { HTTP_FAULTS, HTTP_FAULT, httpFaultOptions } from './binding-http.js';
