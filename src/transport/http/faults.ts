// Faults of the Streamable HTTP server (this transport's listener): each, when switched on, makes
// it break exactly one server-side MUST, named by its ID in suites/requirements.json. The mock
// server merges this catalog into its own (`--fault NAME`) when it serves Streamable HTTP.

/** Which faults are switched on (structurally compatible with the mock server's ActiveFaults). */
export interface FaultSet {
  has(name: string): boolean;
}

/** Names of the Streamable HTTP faults, for the code paths that honour them. */
export const HTTP_FAULT = {
  protocolVersionHeaderIgnored: 'protocol-version-header-ignored',
  originNotValidated: 'origin-not-validated',
} as const;

export type HttpFaultName = (typeof HTTP_FAULT)[keyof typeof HTTP_FAULT];

export interface HttpFaultDefinition {
  name: HttpFaultName;
  requirement: string;
  description: string;
}

/** One entry per Streamable HTTP server MUST this listener can break. */
export const HTTP_FAULTS: readonly HttpFaultDefinition[] = Object.freeze([
  Object.freeze({
    name: HTTP_FAULT.protocolVersionHeaderIgnored,
    requirement: 'CORE-VER-8',
    description: 'serves requests whose MCP-Protocol-Version header names an unsupported version instead of answering 400',
  }),
  Object.freeze({
    name: HTTP_FAULT.originNotValidated,
    requirement: 'CORE-HTTP-1',
    description: 'serves requests whatever their Origin header names (no DNS-rebinding protection) instead of answering 403',
  }),
]);
