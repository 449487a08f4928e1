import { describe, expect, it } from 'vitest';
import { segmentsOf, spansByLine } from './highlight-segments.js';

describe('highlight segments', () => {
  it('cuts a line into plain and coloured pieces that join back to the line', () => {
    const text = '  prompt: "hi" # note';
    const segments = segmentsOf(text, [
      { line: 1, column: 3, length: 6, kind: 'property' },
      { line: 1, column: 9, length: 1, kind: 'punct' },
      { line: 1, column: 11, length: 4, kind: 'string' },
      { line: 1, column: 16, length: 6, kind: 'comment' },
    ]);
    expect(segments).toEqual([
      { text: '  ', kind: null },
      { text: 'prompt', kind: 'property' },
      { text: ':', kind: 'punct' },
      { text: ' ', kind: null },
      { text: '"hi"', kind: 'string' },
      { text: ' ', kind: null },
      { text: '# note', kind: 'comment' },
    ]);
    expect(segments.map((s) => s.text).join('')).toBe(text);
  });

  it('clips overlapping or overlong spans so every character shows exactly once', () => {
    const segments = segmentsOf('abcdef', [
      { line: 1, column: 1, length: 4, kind: 'name' },
      { line: 1, column: 3, length: 10, kind: 'string' },
    ]);
    expect(segments).toEqual([
      { text: 'abcd', kind: 'name' },
      { text: 'ef', kind: 'string' },
    ]);
    expect(segmentsOf('plain')).toEqual([{ text: 'plain', kind: null }]);
  });

  it('groups spans by line', () => {
    const byLine = spansByLine([
      { line: 2, column: 1, length: 1, kind: 'name' },
      { line: 1, column: 1, length: 1, kind: 'name' },
      { line: 2, column: 3, length: 1, kind: 'punct' },
    ]);
    expect([...byLine.keys()]).toEqual([2, 1]);
    expect(byLine.get(2)).toHaveLength(2);
  });
});
