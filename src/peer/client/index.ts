// The MCP Flow mock client as a library: connect, initialize, list, call tools (with execution-stream
// downloads), run interactive sessions through an Answerer, run the client-conformance scenarios as
// the reference driver, and switch faults on to break one client requirement at a time.
export {
  connectMockClient,
  MockClient,
  type MockClientOptions,
  type InitializeInfo,
  type CallOptions,
  type CallOutcome,
  type RequestOptions,
  type InteractionOutcome,
} from './client.js';
export { openConnection, type MockClientTarget } from './connect.js';
export { CANCEL, scriptedAnswerer, loadAnswerScript, answerList, type Answerer, type AskState, type ProgressUpdate } from './answerer.js';
export {
  mockClientFaultCatalog,
  ClientFaults,
  MOCK_CLIENT_FAULT,
  MOCK_CLIENT_FAULTS,
  type ClientFaultDefinition,
  type MockClientFaultName,
} from './faults.js';
export { runScenario, scenarioFromEnvironment, SCENARIOS, SCENARIO_EXIT, type ScenarioEnv, type ScenarioOutcome, type ScenarioOptions, type ScenarioStep, type ScenarioName } from './scenario.js';
export { ExecutionStreams, refStreamItems, type StreamInfo, type StreamOutcome, type StreamSink } from './streams.js';
export { FrameLogTranscript, ObservedTranscript, describeEntry } from './log.js';
export {
  MockClientError,
  UnknownClientFaultError,
  AnswersExhaustedError,
  AnswerScriptError,
  RpcResponseError,
  InitializeFailedError,
  ClientStateError,
  MockClientTargetError,
  ScenarioError,
} from './errors.js';
