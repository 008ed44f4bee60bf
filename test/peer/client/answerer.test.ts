// Scripted answers: a list used in order (running out is a typed error), and answer script files.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { answerList, AnswerScriptError, AnswersExhaustedError, CANCEL, loadAnswerScript, scriptedAnswerer } from '../../../src/peer/client/index.js';

const state = { sessionId: 's', attempt: 1 };

describe('scriptedAnswerer', () => {
  it('answers in order and refuses to answer past the end, naming the prompt', async () => {
    const answerer = scriptedAnswerer(['a', 2]);
    expect(await answerer.ask({ type: 'text', message: 'one' }, state)).toBe('a');
    expect(await answerer.ask({ type: 'number', message: 'two' }, state)).toBe(2);
    expect(answerer.used).toBe(2);
    const exhausted = answerer.ask({ type: 'text', message: 'three' }, state);
    await expect(exhausted).rejects.toBeInstanceOf(AnswersExhaustedError);
    await expect(exhausted).rejects.toThrow(/"three"/);
  });
});

describe('answer scripts', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mock-client-answers-'));
  const file = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };

  it('reads an array or {answers: [...]}, with "$cancel" as CANCEL', async () => {
    expect(await loadAnswerScript(file('list.json', '["x", 1, true]'))).toEqual(['x', 1, true]);
    expect(await loadAnswerScript(file('object.json', '{"answers": [null, "$cancel"]}'))).toEqual([null, CANCEL]);
    expect(answerList({ answers: [{ name: 'a.png' }] })).toEqual([{ name: 'a.png' }]);
  });

  it('refuses a missing file, a file that is not JSON and a document without answers', async () => {
    await expect(loadAnswerScript(join(dir, 'missing.json'))).rejects.toThrow(/cannot read the answer script .*ENOENT/);
    await expect(loadAnswerScript(file('bad.json', '[1,'))).rejects.toThrow(AnswerScriptError);
    await expect(loadAnswerScript(file('shape.json', '{"values": []}'))).rejects.toThrow(/"answers" array/);
  });
});
