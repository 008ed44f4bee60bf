// The proxy's two ends given bad input: a --listen spec it cannot use, an upstream it cannot reach.
import { describe, expect, it } from 'vitest';
import { ListenSpecError, parseListenSpec, probeUpstream, startProxy, UpstreamError } from '../../../src/peer/proxy/index.js';
import { UNREACHABLE_PORT } from '../../support/unreachable.js';

describe('parseListenSpec', () => {
  it('reads wt[:port], http[:port] and stdio', () => {
    expect(parseListenSpec('wt')).toEqual({ transport: 'webtransport', port: 0 });
    expect(parseListenSpec('http:8080')).toEqual({ transport: 'http', port: 8080 });
    expect(parseListenSpec('WT:443')).toEqual({ transport: 'webtransport', port: 443 });
    expect(parseListenSpec('stdio')).toEqual({ transport: 'stdio', port: 0 });
  });

  it.each([
    ['tcp:80', 'unknown transport "tcp"'],
    ['http:80a', 'port "80a" is not an integer in 0..65535'],
    ['http:70000', 'port "70000" is not an integer in 0..65535'],
    ['stdio:1', 'stdio takes no port'],
    ['http:1:2', 'too many ":" parts'],
    ['', 'unknown transport ""'],
  ])('%j is refused: %s', (spec, why) => {
    expect(() => parseListenSpec(spec)).toThrow(ListenSpecError);
    expect(() => parseListenSpec(spec)).toThrow(why);
  });
});

describe('an unreachable upstream', () => {
  it('an HTTP endpoint with nothing listening is refused before the proxy listens', async () => {
    const port = UNREACHABLE_PORT;
    const url = `http://127.0.0.1:${port}/mcp`;
    await expect(probeUpstream({ transport: 'http', url })).rejects.toThrow(UpstreamError);
    await expect(startProxy({ listen: { transport: 'http', port: 0 }, upstream: { transport: 'http', url } })).rejects.toMatchObject({
      code: 'UPSTREAM_UNREACHABLE',
      message: expect.stringContaining(`cannot connect to 127.0.0.1:${port}: ECONNREFUSED`),
    });
  });

  it('a WebTransport server with nothing listening', async () => {
    const port = UNREACHABLE_PORT;
    await expect(probeUpstream({ transport: 'webtransport', url: `https://127.0.0.1:${port}/mcp`, certificateHash: 'ab'.repeat(32) }, { timeoutMs: 5000 })).rejects.toThrow(UpstreamError);
  }, 30_000);

  it('a stdio command that names no executable', async () => {
    await expect(probeUpstream({ transport: 'stdio', command: 'no-such-program-anywhere --flag' })).rejects.toThrow('no-such-program-anywhere is not an executable file');
    await expect(probeUpstream({ transport: 'stdio', command: '"unclosed' })).rejects.toThrow(UpstreamError);
  });
});
