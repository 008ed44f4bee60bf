import { describe, expect, it } from 'vitest';
import { main } from '../src/cli/main.js';

describe('cli entry', () => {
  it('returns an exit code', async () => {
    expect(typeof (await main(['--help']))).toBe('number');
  });
});
