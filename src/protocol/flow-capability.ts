// Where a server advertises MCP Flow support (profile C-14, FLOW-CAP-1): any of three places is
// accepted, and the suite reports which one it found.
import { isRecord } from '../wire/index.js';

/** `experimental`: capabilities.experimental.interactive; `top-level`: capabilities.interactive; `method`: the `capabilities` result. */
export type InteractiveLocation = 'experimental' | 'top-level' | 'method';

export interface InteractiveAdvertisement {
  location: InteractiveLocation;
  /** The value found there: `true` or 000's capability object. */
  value: unknown;
  /** 000's `version`, when the value carries one. */
  version?: string;
  /** 000's `features`, when the value carries them. */
  features?: Record<string, unknown>;
}

/** `true`, or an object whose `interactive` is true (000 §Server Capabilities). */
function advertises(value: unknown): boolean {
  return value === true || (isRecord(value) && value.interactive === true);
}

function describe(location: InteractiveLocation, value: unknown): InteractiveAdvertisement {
  const found: InteractiveAdvertisement = { location, value };
  if (isRecord(value)) {
    if (typeof value.version === 'string') found.version = value.version;
    if (isRecord(value.features)) found.features = value.features;
  }
  return found;
}

/**
 * Every place where the server advertises interactive support, in the order the profile lists
 * them: the `initialize` result's capabilities (experimental, then top-level) and the result of
 * the `capabilities` method (when the caller has one). Empty when the server advertises nothing.
 */
export function findInteractiveAdvertisements(initializeCapabilities: unknown, capabilitiesResult?: unknown): InteractiveAdvertisement[] {
  const found: InteractiveAdvertisement[] = [];
  if (isRecord(initializeCapabilities)) {
    const experimental = initializeCapabilities.experimental;
    if (isRecord(experimental) && advertises(experimental.interactive)) found.push(describe('experimental', experimental.interactive));
    if (advertises(initializeCapabilities.interactive)) found.push(describe('top-level', initializeCapabilities.interactive));
  }
  if (isRecord(capabilitiesResult) && capabilitiesResult.interactive === true) found.push(describe('method', capabilitiesResult));
  return found;
}
