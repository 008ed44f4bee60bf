import { describe, expect, it } from 'vitest';
import { isOriginAllowed } from '../../../src/transport/webtransport/origin.js';

describe('isOriginAllowed', () => {
  it('allows loopback origins by default, in URL or bare-host form', () => {
    for (const origin of ['https://127.0.0.1:4433', 'https://localhost', 'http://[::1]:80', '127.0.0.1', 'localhost:8080', '::1']) {
      expect(isOriginAllowed(origin), origin).toBe(true);
    }
  });

  it('refuses other origins by default, including look-alikes', () => {
    for (const origin of ['https://evil.example', 'https://localhost.evil.example', 'https://127.0.0.1.nip.io', 'null']) {
      expect(isOriginAllowed(origin), origin).toBe(false);
    }
  });

  it('uses an explicit list exactly (scheme, host and port)', () => {
    const policy = { allow: ['https://app.example'] };
    expect(isOriginAllowed('https://app.example', policy)).toBe(true);
    expect(isOriginAllowed('https://app.example:443', policy)).toBe(true);
    expect(isOriginAllowed('http://app.example', policy)).toBe(false);
    expect(isOriginAllowed('https://app.example:8443', policy)).toBe(false);
    expect(isOriginAllowed('https://127.0.0.1', policy)).toBe(false);
  });

  it('treats a missing Origin as allowed unless told otherwise', () => {
    expect(isOriginAllowed(undefined)).toBe(true);
    expect(isOriginAllowed(undefined, { allowMissing: false })).toBe(false);
  });

  it('accepts a predicate', () => {
    expect(isOriginAllowed('https://a.example', { allow: (origin) => origin.endsWith('.example') })).toBe(true);
  });
});
