// What each real peer is expected to get from the suites: every case that FAILs or WARNs, with the
// requirements its failed checks cite and the findings of docs/interop.md that explain it. Every
// other case must PASS, be INFO or NOT_APPLICABLE: a change in either direction fails the tests.
import type { ExpectedDeviations } from './support.js';

/**
 * Modules run against server-everything: the MCP core suites, plus cancellation and
 * session-security, the only others with a case that applies (every other case needs WebTransport,
 * MCP Flow or FastWorkflow and is NOT_APPLICABLE).
 */
export const CORE_MODULES_LIFECYCLE = ['negotiation', 'lifecycle', 'cancellation', 'session-security'] as const;
export const CORE_MODULES_MESSAGES = ['mcp-core', 'bad-input'] as const;

const pageCursor = { verdict: 'WARN', requirements: ['CORE-PAGE-3'], findings: ['SDK-6'] } as const;

/** Deviations common to every transport of server-everything (the SDK's Server, whatever carries it). */
const SERVER_EVERYTHING_COMMON: ExpectedDeviations = {
  'lifecycle/methods-within-version-2024-11-05': { verdict: 'FAIL', requirements: ['CORE-LIFE-11'], findings: ['SDK-3'] },
  'lifecycle/methods-within-version-2025-03-26': { verdict: 'FAIL', requirements: ['CORE-LIFE-11'], findings: ['SDK-3'] },
  'mcp-core/missing-required-params-member': { verdict: 'FAIL', requirements: ['CORE-RPC-11'], findings: ['SDK-5'] },
  'mcp-core/logging-set-level-unknown': { verdict: 'FAIL', requirements: ['CORE-LOG-2'], findings: ['SDK-5'] },
  'bad-input/params-of-the-wrong-type': { verdict: 'FAIL', requirements: ['CORE-RPC-11'], findings: ['SDK-5'] },
  'mcp-core/tools-list-invalid-cursor': pageCursor,
  'mcp-core/resources-list-invalid-cursor': pageCursor,
  'mcp-core/prompts-list-invalid-cursor': pageCursor,
  'mcp-core/tools-call-unknown-tool': { verdict: 'FAIL', requirements: ['CORE-TOOLS-2'], findings: ['SDK-7'] },
  'bad-input/invalid-json-rpc-requests': { verdict: 'FAIL', requirements: ['CORE-RPC-9'], findings: ['SDK-8'] },
  'bad-input/params-not-an-object': { verdict: 'FAIL', requirements: ['CORE-RPC-2'], findings: ['SDK-8'] },
};

/** server-everything over stdio (a process per case). */
export const SERVER_EVERYTHING_STDIO: ExpectedDeviations = {
  ...SERVER_EVERYTHING_COMMON,
  'lifecycle/request-before-initialize-refused': { verdict: 'FAIL', requirements: ['CORE-LIFE-5'], findings: ['SDK-1'] },
  'lifecycle/second-initialize-refused': { verdict: 'WARN', requirements: ['CORE-LIFE-8'], findings: ['SDK-2'] },
  'mcp-core/batch-under-2025-03-26': { verdict: 'FAIL', requirements: ['CORE-RPC-13'], findings: ['SDK-4'] },
  'bad-input/stdio-unparsable-lines': { verdict: 'FAIL', requirements: ['CORE-RPC-8'], findings: ['SDK-9'] },
};

/**
 * server-everything over Streamable HTTP: the SDK's HTTP transport refuses a request without a
 * session (CORE-LIFE-5 holds), takes batches, and refuses the second initialize with id null.
 */
export const SERVER_EVERYTHING_HTTP: ExpectedDeviations = {
  ...SERVER_EVERYTHING_COMMON,
  'lifecycle/second-initialize-refused': { verdict: 'FAIL', requirements: ['CORE-RPC-5'], findings: ['SDK-2'] },
};

/**
 * The SDK's McpServer (test/interop/sdk-server-fixture.ts) over WebTransportSdkServerTransport.
 * The binding layer underneath refuses requests before initialize, so CORE-LIFE-5 holds here.
 */
export const SDK_SERVER_WT: ExpectedDeviations = {
  'lifecycle/second-initialize-refused': { verdict: 'WARN', requirements: ['CORE-LIFE-8'], findings: ['SDK-2'] },
  'lifecycle/quiet-before-initialized': { verdict: 'WARN', requirements: ['CORE-LIFE-7'], findings: ['SDK-10'] },
  'lifecycle/client-features-only-when-declared': { verdict: 'FAIL', requirements: ['CORE-CAP-2'], findings: ['SDK-11'] },
  'mcp-core/batch-under-2025-03-26': { verdict: 'FAIL', requirements: ['CORE-RPC-13'], findings: ['SDK-4'] },
  'mcp-core/missing-required-params-member': { verdict: 'FAIL', requirements: ['CORE-RPC-11'], findings: ['SDK-5'] },
  'bad-input/params-of-the-wrong-type': { verdict: 'FAIL', requirements: ['CORE-RPC-11'], findings: ['SDK-5'] },
  'mcp-core/tools-list-invalid-cursor': pageCursor,
  'mcp-core/resources-list-invalid-cursor': pageCursor,
  'mcp-core/prompts-list-invalid-cursor': pageCursor,
  'mcp-core/tools-call-unknown-tool': { verdict: 'FAIL', requirements: ['CORE-TOOLS-2'], findings: ['SDK-7'] },
  'bad-input/invalid-json-rpc-requests': { verdict: 'FAIL', requirements: ['CORE-RPC-9'], findings: ['SDK-8'] },
  'bad-input/params-not-an-object': { verdict: 'FAIL', requirements: ['CORE-RPC-2'], findings: ['SDK-8'] },
};
