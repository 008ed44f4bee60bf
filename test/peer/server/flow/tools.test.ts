// Interactive tools in tools/list, and tools/call on them: every answer up front (000 §Graceful Degradation).
import { describe, expect, it } from 'vitest';
import { flowExtension, type FlowExtension } from '../../../../src/peer/server/flow/index.js';
import { testServer } from './harness.js';

function tool(ext: FlowExtension, name: string) {
  const found = ext.tools?.find((t) => t.name === name);
  if (found === undefined) throw new Error(`no tool ${name}`);
  return found;
}

describe('wizard tools', () => {
  const server = testServer();
  const ctx = { ...server.connect().context, requestId: 1, method: 'tools/call', cancelled: new AbortController().signal, reportProgress: async () => undefined };

  it('lists every wizard with an input schema built from its prompts', () => {
    const ext = flowExtension();
    expect(ext.tools?.map((t) => t.name)).toEqual(['booking', 'file-export', 'registration']);
    expect(tool(ext, 'booking').inputSchema).toMatchObject({
      type: 'object',
      properties: {
        destination: { type: 'string', pattern: "^[A-Za-z][A-Za-z .'-]*$", minLength: 2, maxLength: 50 },
        date: { type: 'string', format: 'date' },
        travellers: { type: 'number', minimum: 1, maximum: 9 },
        cabin: { enum: ['economy', 'business', 'first'] },
        confirm: { type: 'boolean' },
      },
    });
  });

  it('runs a wizard with all answers given', async () => {
    const result = await tool(server.ext, 'booking').call({ destination: 'Rome', date: '2030-01-01', travellers: 1, cabin: 'business', confirm: true }, ctx);
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toMatchObject({ destination: 'Rome', class: 'business', travellers: 1 });
    expect(result.content).toEqual([{ type: 'text', text: 'Booked business to Rome on 2030-01-01 for 1' }]);
  });

  it('reports a missing or invalid answer as a tool error naming it', async () => {
    const missing = await tool(server.ext, 'booking').call({ destination: 'Rome' }, ctx);
    expect(missing).toMatchObject({ isError: true, content: [{ type: 'text', text: expect.stringContaining('"date"') }] });
    const invalid = await tool(server.ext, 'booking').call({ destination: 'Rome', date: '2030-02-30', travellers: 1, cabin: 'economy', confirm: true }, ctx);
    expect(invalid).toMatchObject({ isError: true, content: [{ text: expect.stringContaining('Use YYYY-MM-DD') }] });
  });

  it('refuses answers that would loop back without interaction', async () => {
    const looped = await tool(server.ext, 'booking').call({ destination: 'Rome', date: '2030-01-01', travellers: 1, cabin: 'economy', confirm: false }, ctx);
    expect(looped).toMatchObject({ isError: true, content: [{ text: expect.stringContaining('lead back to step "destination"') }] });
  });

  it('returns the exported file as an embedded resource, using defaults for answers not given', async () => {
    const result = await tool(server.ext, 'file-export').call({ rows: 2, start: true }, ctx);
    expect(result.content[1]).toEqual({
      type: 'resource',
      resource: { uri: 'file:///export.csv', mimeType: 'text/csv', text: 'id,value\n1,value-1\n2,value-2\n' },
    });
  });
});
