import { describe, expect, it } from 'vitest';
import { SseParser } from './sse.js';

describe('SseParser', () => {
  it('frames messages across arbitrary chunk boundaries and line endings', () => {
    const text = 'retry: 2000\n\n: comment\nevent: hw\nid: a.1\ndata: {"x":1}\n\nevent: reset\r\nid: a.2\r\ndata: one\r\ndata: two\r\n\r\ndata: plain\r\r';
    for (const size of [1, 2, 3, 7, text.length]) {
      const parser = new SseParser();
      const out = [];
      for (let i = 0; i < text.length; i += size) out.push(...parser.push(text.slice(i, i + size)));
      expect(out).toEqual([
        { event: 'hw', id: 'a.1', data: '{"x":1}' },
        { event: 'reset', id: 'a.2', data: 'one\ntwo' },
        { event: 'message', id: undefined, data: 'plain' },
      ]);
    }
  });
});
