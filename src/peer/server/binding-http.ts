// Faults of the Streamable HTTP listener (src/transport/http/server.ts): each, when switched on,
// makes it break exactly one server-side MUST, named by its ID in suites/requirements.json. The mock
// server merges this catalog into its own (`--fault NAME`) when it serves Streamable HTTP; a fault
// attaches as the listener options it changes (httpFaultOptions), never as a name inside transport.
import { networkInterfaces } from 'node:os';
import type { HttpServerOptions } from '../../transport/http/server.js';
import { defineFault, type FaultDefinition } from './extension.js';

/** Names of the Streamable HTTP faults. */
export const HTTP_FAULT = {
  protocolVersionHeaderIgnored: 'protocol-version-header-ignored',
  originNotValidated: 'origin-not-validated',
  plainHttpOnNetworkAddress: 'plain-http-on-network-address',
} as const;

export type HttpFaultName = (typeof HTTP_FAULT)[keyof typeof HTTP_FAULT];

/** One entry per Streamable HTTP server MUST this listener can break. */
export const HTTP_FAULTS: readonly FaultDefinition[] = Object.freeze([
  defineFault(
    HTTP_FAULT.protocolVersionHeaderIgnored,
    'CORE-VER-8',
    'serves requests whose MCP-Protocol-Version header names an unsupported version instead of answering 400',
  ),
  defineFault(
    HTTP_FAULT.originNotValidated,
    'CORE-HTTP-1',
    'serves requests whatever their Origin header names (no DNS-rebinding protection) instead of answering 403',
  ),
  defineFault(
    HTTP_FAULT.plainHttpOnNetworkAddress,
    'FLOW-SEC-5',
    "listens with plain http on an address of this machine's network interface (its first IPv4 off loopback; 0.0.0.0, every interface, on a machine with none) instead of 127.0.0.1: sessions travel without TLS",
  ),
]);

/** An IPv4 address of this machine off the loopback interface, or 0.0.0.0 (every interface) when it has none. */
function networkAddress(): string {
  for (const addresses of Object.values(networkInterfaces())) {
    for (const address of addresses ?? []) if (address.family === 'IPv4' && !address.internal) return address.address;
  }
  return '0.0.0.0';
}

/** The listener options the switched-on faults change (merged over the options given). */
export function httpFaultOptions(faults: { has(name: string): boolean }): Partial<HttpServerOptions> {
  // FAULT plain-http-on-network-address: reachable from the network, still plain http.
  const exposed = faults.has(HTTP_FAULT.plainHttpOnNetworkAddress) ? networkAddress() : undefined;
  return {
    ...(exposed !== undefined ? { host: exposed } : {}),
    // FAULT origin-not-validated: every Origin is allowed.
    ...(faults.has(HTTP_FAULT.originNotValidated) ? { allowedOrigins: '*' as const } : {}),
    // FAULT protocol-version-header-ignored: no MCP-Protocol-Version is checked.
    ...(faults.has(HTTP_FAULT.protocolVersionHeaderIgnored) ? { supportedProtocolVersions: false as const } : {}),
  };
}
