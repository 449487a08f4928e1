import { describe, expect, it } from 'vitest';
import { prettyJson } from './json-text.js';

describe('prettyJson', () => {
  it('lays out an object or array two spaces a level', () => {
    expect(prettyJson('{"a":1,"b":[true,null,{"c":"x"}],"d":{},"e":[ ]}')).toEqual({
      json: true,
      text: '{\n  "a": 1,\n  "b": [\n    true,\n    null,\n    {\n      "c": "x"\n    }\n  ],\n  "d": {},\n  "e": []\n}',
    });
    expect(prettyJson('  [1, 2]\n')).toEqual({ json: true, text: '[\n  1,\n  2\n]' });
  });

  it('keeps strings and numbers exactly as written', () => {
    const source = '{"id":12345678901234567890,"ratio":1.0,"text":"a, b: {c} [d] \\"q\\" \\u00e9 \\\\"}';
    const { text, json } = prettyJson(source);
    expect(json).toBe(true);
    expect(text).toContain('"id": 12345678901234567890');
    expect(text).toContain('"ratio": 1.0');
    expect(text).toContain('"text": "a, b: {c} [d] \\"q\\" \\u00e9 \\\\"');
    // Nothing but whitespace changed.
    expect(text.replace(/\s/g, '')).toBe(source.replace(/\s/g, ''));
  });

  it('leaves plain text, bare values and broken JSON as they are', () => {
    for (const text of ['Summarise the release notes', '42', '"just a string"', '{"a": 1', '{oops}', '']) {
      expect(prettyJson(text)).toEqual({ text, json: false });
    }
  });
});
