import { describe, expect, it } from 'vitest';
import { numberPlaceholders } from './placeholders.js';

describe('numberPlaceholders', () => {
  it('numbers each ? in order', () => {
    expect(numberPlaceholders('SELECT * FROM runs WHERE id = ? AND started_at > ? LIMIT ?')).toBe(
      'SELECT * FROM runs WHERE id = $1 AND started_at > $2 LIMIT $3',
    );
  });

  it('leaves a ? inside strings, quoted identifiers, comments and dollar quotes alone', () => {
    expect(numberPlaceholders(`SELECT '?', 'it''s ?', "odd?name", ? -- why?\n, ? /* ? */ , $$?$$, $tag$ ? $tag$, ?`)).toBe(
      `SELECT '?', 'it''s ?', "odd?name", $1 -- why?\n, $2 /* ? */ , $$?$$, $tag$ ? $tag$, $3`,
    );
  });

  it('keeps casts and existing text as they are', () => {
    expect(numberPlaceholders('SELECT ?::bigint, x::text FROM t WHERE y IN (?, ?)')).toBe('SELECT $1::bigint, x::text FROM t WHERE y IN ($2, $3)');
  });

  it('leaves an unterminated string as text to the end (the server reports the error)', () => {
    expect(numberPlaceholders("SELECT ? WHERE x = 'open ?")).toBe("SELECT $1 WHERE x = 'open ?");
  });
});
