import type Database from 'better-sqlite3';
import { fingerprintOf } from '../../core/store/projection/fingerprint.js';

/**
 * The bulk history's errors as the product groups them (bulk-seed.ts): each error's message is
 * one of six codes' messages in one of seven shapes, with a request number that the product's
 * normalisation turns into `<n>`, so the 42 (code, shape) pairs are 42 issues. Their fingerprints
 * are computed here by the product's own `fingerprintOf` (never re-stated in SQL), then written
 * into the rows through a CASE over the pair, so the API's issue ids (16 hex characters) open
 * on this history. The issues' log gets the `new` row the issue watch writes for a fingerprint
 * it has not seen (core/service/issues/rules.ts), at the issue's first occurrence.
 */

/** code, category, message; an error's issue is its code and one of SHAPES. */
export const CODES: readonly [string, string, string][] = [
  ['RUNTIME_RATE_LIMIT', 'runtime', 'runtime fake was rate limited: 429'],
  ['RUNTIME_TIMEOUT', 'runtime', 'runtime fake reported a timeout (exit 124)'],
  ['RUNTIME_CRASHED', 'runtime', 'runtime fake exited with code 2'],
  ['AGENT_INVALID_OUTPUT', 'agent', 'agent answer did not parse as JSON'],
  ['VERIFICATION_CHECK_FAILED', 'verification', 'npm test exited with code 1'],
  ['GIT_MERGE_CONFLICT', 'git', 'merge conflict in src/app.ts'],
];

/** Where in the flow it happened: words only, so each shape is its own template. */
const SHAPES = ['while planning', 'while coding', 'while reviewing', 'while testing', 'while merging', 'while deploying', 'while summarising'] as const;

export const ORIGIN = 'runtime:fake';

const quote = (text: string): string => `'${text.replace(/'/g, "''")}'`;

/** The pair of run `index` (an SQL integer expression): code by index / 12, shape by index % 7. */
const pairOf = (index: string): string => `((${index}) / 12 % ${CODES.length}) * ${SHAPES.length} + (${index}) % ${SHAPES.length}`;

const messageOf = (code: number, shape: number, request: string): string => `${CODES[code]?.[2]} ${SHAPES[shape]} (request ${request})`;

/** Every (code, shape) pair in pair order. */
function pairs(): { code: number; shape: number; pair: number }[] {
  return CODES.flatMap((_, code) => SHAPES.map((_shape, shape) => ({ code, shape, pair: code * SHAPES.length + shape })));
}

/** SQL: the message of run `index`'s errors, with its request number (the volatile part). */
export function messageSql(index: string): string {
  const cases = pairs().map(
    ({ code, shape, pair }) => `WHEN ${pair} THEN ${quote(`${CODES[code]?.[2]} ${SHAPES[shape]} (request `)} || ((${index}) * 7919 % 100000) || ')'`,
  );
  return `(CASE ${pairOf(index)} ${cases.join(' ')} END)`;
}

/** SQL: the fingerprint of run `index`'s errors, as `fingerprintOf` computed it for its pair. */
export function fingerprintSql(index: string): string {
  const cases = pairs().map(({ code, shape, pair }) => {
    const [name, category] = CODES[code] ?? ['', ''];
    return `WHEN ${pair} THEN ${quote(fingerprintOf(category, name, ORIGIN, messageOf(code, shape, '12345')).fingerprint)}`;
  });
  return `(CASE ${pairOf(index)} ${cases.join(' ')} END)`;
}

/** SQL: the template of the issue whose fingerprint is `column`, as `fingerprintOf` made it (error_groups.template). */
export function templateSql(column: string): string {
  const cases = pairs().map(({ code, shape }) => {
    const [name, category] = CODES[code] ?? ['', ''];
    const made = fingerprintOf(category, name, ORIGIN, messageOf(code, shape, '12345'));
    return `WHEN ${quote(made.fingerprint)} THEN ${quote(made.template)}`;
  });
  return `(CASE ${column} ${cases.join(' ')} END)`;
}

/** The `new` row of each issue, as the issue watch journals it for a fingerprint first seen. */
export function seedIssueLog(db: Database.Database): void {
  db.exec(`INSERT INTO issue_log (fingerprint, kind, from_status, to_status, actor, host, at, reason, dedupe_key)
    SELECT fingerprint, 'new', NULL, 'unresolved', 'system', 'bulk-seed', first_seen, 'first occurrence', fingerprint || ':new'
    FROM error_groups ORDER BY first_seen, fingerprint`);
}

/**
 * Recomputes with `fingerprintOf` the fingerprint of every error of `sample` runs spread over
 * the history (read by the errors' `(run_id, seq)` key) and throws on the first that differs:
 * the seed's SQL and the product's grouping must agree, or the benches would open issues no
 * ingest makes. Returns how many errors it checked.
 */
export function checkFingerprints(db: Database.Database, runs: number, sample: number): number {
  const read = db.prepare('SELECT run_id, seq, category, code, origin, message, fingerprint FROM errors WHERE run_id = ?');
  type Row = { run_id: string; seq: number; category: string; code: string; origin: string; message: string; fingerprint: string };
  const stride = Math.max(1, Math.floor(runs / sample));
  let checked = 0;
  for (let i = 0; i < runs; i += stride) {
    for (const row of read.all(`run_bulk${String(i).padStart(7, '0')}`) as Row[]) {
      const expected = fingerprintOf(row.category, row.code, row.origin, row.message).fingerprint;
      if (row.fingerprint !== expected)
        throw new Error(`bulk seed: error ${row.run_id}#${row.seq} has fingerprint ${row.fingerprint}, the product computes ${expected} for "${row.message}"`);
      checked++;
    }
  }
  return checked;
}
