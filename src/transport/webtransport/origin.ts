// Origin checks made before a session is accepted (001 §9 "Validate Origin header (CSRF protection)").

export interface OriginPolicy {
  /**
   * Origins allowed: exact origins ("https://app.example"), or a function. Default: loopback
   * origins only (127.0.0.1, ::1, localhost on any scheme and port), which covers local tools.
   */
  allow?: readonly string[] | ((origin: string) => boolean);
  /** Whether a request without an Origin header (non-browser clients) is accepted. Default true. */
  allowMissing?: boolean;
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

/**
 * Decides whether `origin` (the header value, undefined when absent) may open a session. An empty
 * Origin names no origin at all: it is refused like a foreign one, as over Streamable HTTP.
 */
export function isOriginAllowed(origin: string | undefined, policy: OriginPolicy = {}): boolean {
  if (origin === undefined) return policy.allowMissing ?? true;
  if (origin.trim() === '') return false;
  const allow = policy.allow;
  if (typeof allow === 'function') return allow(origin);
  if (allow) return allow.some((allowed) => sameOrigin(allowed, origin));
  return LOOPBACK_HOSTS.has(hostOf(origin) ?? '');
}

function sameOrigin(a: string, b: string): boolean {
  if (a === '*') return true;
  return normalise(a) === normalise(b);
}

function normalise(origin: string): string {
  try {
    return new URL(origin).origin;
  } catch {
    return origin.toLowerCase();
  }
}

/** The host of an origin; a bare host (as the Node client sends) counts as itself. */
function hostOf(origin: string): string | undefined {
  if (!origin.includes('://')) {
    const lower = origin.toLowerCase();
    if (lower.startsWith('[')) return lower.slice(0, lower.indexOf(']') + 1);
    if ((lower.match(/:/g) ?? []).length > 1) return lower; // bare IPv6
    return lower.replace(/:\d+$/, '');
  }
  try {
    return new URL(origin).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}
