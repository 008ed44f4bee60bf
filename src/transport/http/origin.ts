// Origin validation against DNS rebinding (Streamable HTTP "Security Warning": servers MUST validate
// the Origin header of every request).

/** `'*'` allows every origin; a list allows exactly those origins; the default allows loopback. */
export type OriginPolicy = '*' | readonly string[] | 'loopback';

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Whether a request with this Origin header (undefined: none sent) may proceed. */
export function originAllowed(origin: string | undefined, policy: OriginPolicy): boolean {
  // Requests without Origin do not come from a browser page, which is what rebinding needs.
  if (origin === undefined) return true;
  if (policy === '*') return true;
  if (policy === 'loopback') {
    try {
      return LOOPBACK_HOSTS.has(new URL(origin).hostname);
    } catch {
      return false;
    }
  }
  const normalised = normaliseOrigin(origin);
  return policy.some((allowed) => normaliseOrigin(allowed) === normalised);
}

function normaliseOrigin(origin: string): string {
  return origin.trim().toLowerCase().replace(/\/+$/, '');
}
