// Self-test: every testable server-side MUST of the profile (role server or both) is declared by at
// least one server case; a requirement the catalog marks not testable (with why) is exempt. And the
// suites register cleanly: every case cites catalog requirements that are testable and not withdrawn.
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { mockServerFaultCatalog } from '../../../src/peer/server/index.js';
import { requirements } from '../../../src/protocol/requirements.js';
import { serverCases, serverRegistry } from '../../../suites/server/index.js';
import { listed } from './support.js';

describe('requirement coverage of the server suites', () => {
  it('the server suites register (IDs unique, requirements known, testable and not withdrawn)', () => {
    expect(serverRegistry().size).toBe(serverCases().length);
  });

  it('every testable server or both MUST is declared by at least one case', () => {
    const declared = new Set(serverCases().flatMap((c) => c.requirements));
    const missing = requirements()
      .list({ level: 'MUST' })
      .filter((r) => (r.role === 'server' || r.role === 'both') && r.testable === true && r.withdrawn === undefined && !declared.has(r.id))
      .map((r) => `${r.id} (${r.role}): ${r.text.replace(/\s+/g, ' ').slice(0, 160)}`);
    expect(missing, listed('testable server MUST(s) declared by no case', missing)).toEqual([]);
  });
});

describe('fault coverage files', () => {
  it('every layer of the fault catalog has a faults-<layer> test file here', () => {
    const files = readdirSync(new URL('.', import.meta.url));
    const layers = [...new Set(mockServerFaultCatalog().map((entry) => entry.layer))];
    const missing = layers.filter((layer) => !files.some((file) => file.startsWith(`faults-${layer}`) && file.endsWith('.test.ts')));
    expect(missing, listed('fault layer(s) without a faults-<layer>*.test.ts file', missing)).toEqual([]);
  });
});
