// Issue 6: the client suites judge every client-side MUST a scripted server can observe. This is
// the ratchet: every testable MUST of role client or both is declared by a client case, or is
// listed below with the reason no case checks it. A case added for a listed MUST must take it off
// the list, and a new client MUST fails here until a case declares it or it is listed.
import { describe, expect, it } from 'vitest';
import { requirements } from '../../../src/protocol/requirements.js';
import { clientCases, clientRegistry } from '../../../suites/client/index.js';

/** Client/both MUSTs no client case checks, each with the reason. */
const NOT_CHECKED: Readonly<Record<string, string>> = {
  'WT-CONN-1':
    'the 001 §1 state machine as a whole: its client-side steps are WT-CONN-2 (control stream first), WT-CONN-3/WT-CONN-5 (initialize first, nothing until its answer), WT-CONN-6 (control stream end closes), WT-SHUT-* (shutdown), each declared by a case',
  'WT-INIT-7':
    'says CORE-LIFE-* and CORE-VER-* apply to the WebTransport initialize: the lifecycle cases run over WebTransport and check those parts there',
  'WT-FRAME-7': 'follows WT-FRAME-3: a client advertises no maxMessageSize of its own, so there is no oversized frame to send it',
  'WT-DGRAM-8': 'concerns what a peer sends in datagrams; a scenario client sends none',
  'WT-SHUT-1': 'concerns a $/shutdown the peer sends; a scenario client never shuts the session down itself (the schema check would judge one it sent)',
  'WT-SEC-2': "the negotiated TLS version is not exposed to cases by the harness's WebTransport listener",
  'WT-SEC-4':
    'needs the harness to give the client a certificate hash that does not match its certificate (MCP_FLOW_CERT_HASH is always the right one); clientTarget has no option for it',
  'WT-ERR-2': 'how a client reads a -32000 answer (Cancelled or Stream Limit Exceeded) is its own interpretation, not on the wire',
};

describe('client-side MUST coverage', () => {
  const declared = new Set(clientCases().flatMap((c) => c.requirements));
  const clientMusts = requirements().catalog.requirements.filter(
    (r) => r.level === 'MUST' && (r.role === 'client' || r.role === 'both') && r.testable === true && r.withdrawn === undefined,
  );

  it('every testable client MUST is declared by a client case, or listed with a reason', () => {
    const missing = clientMusts.filter((r) => !declared.has(r.id) && !Object.hasOwn(NOT_CHECKED, r.id)).map((r) => r.id);
    expect(missing, 'client MUSTs no case declares and not listed').toEqual([]);
  });

  it('the list holds only testable client MUSTs that no case declares', () => {
    const ids = new Set(clientMusts.map((r) => r.id));
    for (const id of Object.keys(NOT_CHECKED)) {
      expect(ids.has(id), `${id} is not a testable client MUST`).toBe(true);
      expect(declared.has(id), `${id} is declared by a case now: take it off the list`).toBe(false);
    }
  });

  it('every client case registers in a client registry (no server-only requirement, unique ids, a scenario each)', () => {
    const registry = clientRegistry();
    expect(registry.size).toBe(clientCases().length);
    for (const c of registry.list()) expect(c.scenario?.name, `${c.id} names its scenario`).toMatch(/^(initialize|tools-call|interaction)$/);
  });

  it('the FAULT-driven requirements the issue names are all declared', () => {
    for (const id of ['WT-CONN-3', 'WT-ENC-1', 'WT-INIT-1', 'CORE-LIFE-1', 'CORE-LIFE-2', 'WT-ENC-3', 'WT-ENC-12', 'CORE-LIFE-4', 'WT-CONN-5', 'WT-EXEC-2', 'WT-EXEC-9', 'WT-EXEC-3', 'WT-EXEC-7', 'WT-STREAMERR-4', 'WT-CANCEL-6', 'WT-CANCEL-7', 'CORE-CANCEL-3', 'FLOW-VALID-12', 'WT-SHUT-2', 'WT-SHUT-5', 'WT-FRAME-4', 'WT-FRAME-8', 'CORE-LIFE-12', 'CORE-SAMPLING-4', 'FLOW-CAP-9', 'FLOW-PROMPT-2', 'FLOW-SM-8', 'FLOW-SM-9', 'CORE-PAGE-4', 'CORE-LIFE-9', 'CORE-VER-5', 'CORE-VER-7', 'CORE-RPC-4', 'CORE-RPC-6', 'WT-FRAME-9']) {
      expect(declared.has(id), id).toBe(true);
    }
  });
});
