// A failed check's one-line reason: what the check was about, what it expected and what came.
import { describe, expect, it } from 'vitest';
import { describeValue, failureReason } from '../../src/harness/reason.js';

describe('failureReason', () => {
  it('says what was expected and what came, so no FAIL line reads like a pass', () => {
    expect(
      failureReason({
        message: 'ping without params is answered with {}',
        expected: {},
        actual: { jsonrpc: '2.0', id: 3, error: { code: -32601, message: 'Method not found' } },
      }),
    ).toBe('ping without params is answered with {}: expected {}, got error -32601 "Method not found"');
    expect(failureReason({ message: 'no answer to ping within 5000 ms', expected: 'a response with id 1', actual: 'no response' })).toBe(
      'no answer to ping within 5000 ms: expected a response with id 1, got no response',
    );
  });

  it('gives the side the check recorded, and says a check without either did not hold', () => {
    expect(failureReason({ message: 'serverInfo is an object', actual: null })).toBe('serverInfo is an object: got null');
    expect(failureReason({ message: 'the prompt arrives', expected: 'interaction.prompt' })).toBe('the prompt arrives: expected interaction.prompt, which did not come');
    expect(failureReason({ message: 'ping result is {}' })).toBe('ping result is {} (did not hold)');
  });

  it('shows values in one line: errors by code and message, results as results, long values cut', () => {
    expect(describeValue({ code: -32602, message: 'Invalid params' })).toBe('error -32602 "Invalid params"');
    expect(describeValue({ jsonrpc: '2.0', id: 1, result: { pong: true } })).toBe('result {"pong":true}');
    expect(describeValue(undefined)).toBe('nothing');
    expect(describeValue(10n)).toBe('"10"');
    const long = describeValue({ text: 'x'.repeat(500) });
    expect(long.length).toBeLessThan(170);
    expect(long.endsWith('…')).toBe(true);
  });
});

describe('describeValue of this tool\'s own coded errors', () => {
  it('shows the code and the message', () => {
    expect(describeValue({ code: 'CONNECTION_CLOSED', message: 'connection closed' })).toBe('CONNECTION_CLOSED "connection closed"');
  });
});
