import type { Diagnostic } from './ast.js';

/**
 * A flow file is UTF-8 text. Anything else (an executable given by mistake, a file in another
 * encoding) is refused with one diagnostic before the lexer sees it: decoded leniently it would
 * be read as thousands of lines of unknown tokens, one problem each.
 */

/** Why these bytes are not UTF-8 text, or null when they are. */
export function notTextReason(bytes: Uint8Array): string | null {
  const nul = bytes.indexOf(0);
  if (nul !== -1) return `it holds a NUL byte at byte ${nul}, so it is binary`;
  const invalid = firstInvalidUtf8(bytes);
  return invalid === -1 ? null : `it is not UTF-8 (an invalid byte sequence at byte ${invalid})`;
}

/** The offset of the first byte that does not start or continue a valid UTF-8 sequence, or -1. */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const lead = bytes[i] as number;
    if (lead < 0x80) {
      i += 1;
      continue;
    }
    // Lead bytes of 2-, 3- and 4-byte sequences, with the range their first continuation byte
    // must fall in (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF).
    let length: number;
    let low = 0x80;
    let high = 0xbf;
    if (lead >= 0xc2 && lead <= 0xdf) length = 2;
    else if (lead >= 0xe0 && lead <= 0xef) {
      length = 3;
      if (lead === 0xe0) low = 0xa0;
      if (lead === 0xed) high = 0x9f;
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      length = 4;
      if (lead === 0xf0) low = 0x90;
      if (lead === 0xf4) high = 0x8f;
    } else return i;
    for (let k = 1; k < length; k++) {
      const next = bytes[i + k];
      const [min, max] = k === 1 ? [low, high] : [0x80, 0xbf];
      if (next === undefined || next < min || next > max) return i;
    }
    i += length;
  }
  return -1;
}

/**
 * The largest flow file read: four bytes for each of the 512 Ki characters the window may save
 * (LIMITS.maxSourceChars), so every flow the window writes can be read back.
 */
export const MAX_FLOW_FILE_BYTES = 2 * 1024 * 1024;

export type FlowText = { ok: true; source: string } | { ok: false; diagnostic: Diagnostic };

/** The text of a flow file, or the one diagnostic that says it is not a text flow file. */
export function flowText(bytes: Uint8Array, file: string): FlowText {
  const reason = notTextReason(bytes);
  if (reason !== null) return { ok: false, diagnostic: notTextDiagnostic(file, reason) };
  return { ok: true, source: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8') };
}

function notTextDiagnostic(file: string, reason: string): Diagnostic {
  return { file, line: 1, column: 1, message: `not a text flow file: ${file} (${reason})`, severity: 'error' };
}

/** How many problems a check lists; the rest are counted in one last diagnostic. */
export const MAX_LISTED_DIAGNOSTICS = 50;

/**
 * At most `MAX_LISTED_DIAGNOSTICS`, then "… and N more" at the place of the first one left out,
 * so no caller (the CLI, the window, a recorded run) ever carries megabytes of them.
 */
export function boundDiagnostics(diagnostics: readonly Diagnostic[], limit = MAX_LISTED_DIAGNOSTICS): Diagnostic[] {
  if (diagnostics.length <= limit) return [...diagnostics];
  const rest = diagnostics.slice(limit);
  const first = rest[0] as Diagnostic;
  const errors = rest.filter((d) => d.severity === 'error').length;
  return [
    ...diagnostics.slice(0, limit),
    {
      file: first.file,
      line: first.line,
      column: first.column,
      message: `… and ${rest.length} more ${rest.length === 1 ? 'problem' : 'problems'} (${errors} ${errors === 1 ? 'error' : 'errors'}; only the first ${limit} are listed)`,
      severity: errors > 0 ? 'error' : 'warning',
    },
  ];
}
