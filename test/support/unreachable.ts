// An address nothing listens on, for the tests of a server that is not there. A port bound and then
// released is not one: while the test goes on, a server another test file starts on a port the OS
// picks can get that very port (seen with 10 files at once: a run "against nothing" reached another
// test's mock and exited 1 instead of 2). Port 1 lies below the range the OS picks ports from, no
// test binds it, and an unprivileged process cannot.

/** A TCP port on 127.0.0.1 that refuses connections. */
export const UNREACHABLE_PORT = 1;

/** An MCP endpoint URL on UNREACHABLE_PORT. */
export function unreachableUrl(scheme: 'http' | 'https' = 'http'): string {
  return `${scheme}://127.0.0.1:${UNREACHABLE_PORT}/mcp`;
}
