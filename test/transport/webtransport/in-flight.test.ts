import { describe, expect, it } from 'vitest';
import { InFlightRequests, streamTagsReferenced } from '../../../src/transport/webtransport/in-flight.js';

describe('InFlightRequests', () => {
  it('tracks requests per direction until their response passes the other way', () => {
    const inFlight = new InFlightRequests();
    inFlight.observe({ jsonrpc: '2.0', id: 1, method: 'tools/call' }, 'sent');
    inFlight.observe({ jsonrpc: '2.0', id: 2, method: 'sampling/createMessage' }, 'received');
    expect(inFlight.has(1, 'sent')).toBe(true);
    expect(inFlight.has(1, 'received')).toBe(false); // a request the other way is no stream owner
    expect(inFlight.has(2, 'received')).toBe(true);
    inFlight.observe({ jsonrpc: '2.0', id: 1, result: {} }, 'sent'); // our answer to *their* 1: not ours
    expect(inFlight.has(1, 'sent')).toBe(true);
    inFlight.observe({ jsonrpc: '2.0', id: 1, result: {} }, 'received');
    inFlight.observe({ jsonrpc: '2.0', id: 2, error: { code: 1, message: 'x' } }, 'sent');
    expect(inFlight.has(1, 'sent')).toBe(false);
    expect(inFlight.has(2, 'received')).toBe(false);
  });

  it('keeps an answered id correlatable until the streams its result references arrive', () => {
    const inFlight = new InFlightRequests();
    inFlight.observe({ jsonrpc: '2.0', id: 42, method: 'tools/call' }, 'sent');
    inFlight.observe({ jsonrpc: '2.0', id: 42, result: { content: [{ type: 'ref/stream', streamTag: 1 }] } }, 'received');
    expect(inFlight.has(42, 'sent')).toBe(true);
    inFlight.streamSeen(42, 1);
    expect(inFlight.has(42, 'sent')).toBe(false);
  });

  it('waitFor resolves when the id appears and false after the grace period', async () => {
    const inFlight = new InFlightRequests();
    const appears = inFlight.waitFor(5, 'received', 10_000);
    inFlight.observe({ jsonrpc: '2.0', id: 5, method: 'upload' }, 'received');
    await expect(appears).resolves.toBe(true);
    await expect(inFlight.waitFor(6, 'received', 1)).resolves.toBe(false);
  });
});

describe('streamTagsReferenced', () => {
  it('finds ref/stream items at any depth', () => {
    expect(streamTagsReferenced({ content: [{ type: 'text', text: 'a' }, { type: 'ref/stream', streamTag: 3 }], nested: { x: [{ type: 'ref/stream', streamTag: 4 }] } })).toEqual([3, 4]);
    expect(streamTagsReferenced({ type: 'ref/stream', streamTag: '3' })).toEqual([]);
  });
});
