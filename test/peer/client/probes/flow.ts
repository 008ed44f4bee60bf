// Probes of the mock client's MCP Flow faults (issue 16): what it sends in an interactive session.
import { MOCK_CLIENT_FAULT as F, scriptedAnswerer } from '../../../../src/peer/client/index.js';
import { DEADLINE, isRequest, type Message } from '../support.js';
import { answerNext, initialized, nextWithin, startSession, type Probe } from './support.js';

export const FLOW_PROBES: Record<string, Probe> = {
  [F.serverRequestSent]: {
    transport: 'memory',
    async run(peer) {
      await initialized(peer!);
      const run = peer!.client.interact('wizard', undefined, scriptedAnswerer([]));
      const sessionId = await startSession(peer!);
      const sent = await nextWithin(peer!.server, (m) => m.method === 'interaction.prompt', 2000);
      await peer!.server.send({ jsonrpc: '2.0', id: 'done', method: 'interaction.complete', params: { sessionId, result: { success: true, data: {} } } });
      await run;
      return sent;
    },
    expected: (c, f) => c === 'none' && f === 'interaction.prompt',
  },
  [F.startWithoutToolName]: {
    transport: 'memory',
    async run(peer) {
      await initialized(peer!);
      const run = peer!.client.interact('wizard', undefined, scriptedAnswerer([]));
      const { message } = await peer!.server.next(isRequest('interaction.start'), DEADLINE);
      const params = (message as Message).params;
      await peer!.server.send({ jsonrpc: '2.0', id: (message as Message).id, error: { code: -32602, message: 'probe done' } });
      await run;
      return params;
    },
    expected: (c, f) => c.toolName === 'wizard' && f.toolName === undefined && f.tool === 'wizard',
  },
  [F.respondTwice]: {
    transport: 'memory',
    async run(peer) {
      await initialized(peer!);
      const run = peer!.client.interact('wizard', undefined, scriptedAnswerer(['yes']));
      const sessionId = await startSession(peer!, { type: 'text', message: 'Say yes' });
      await answerNext(peer!.server, 'interaction.respond', { accepted: true });
      // What the client sends once its answer was accepted and no prompt waits.
      const sent = await nextWithin(peer!.server, (m) => m.method === 'interaction.respond', 2000);
      await peer!.server.send({ jsonrpc: '2.0', id: 'done', method: 'interaction.complete', params: { sessionId, result: { success: true, data: {} } } });
      await run;
      return sent;
    },
    expected: (c, f) => c === 'none' && f === 'interaction.respond',
  },
};
