import { createHash } from 'node:crypto';

/**
 * What identifies the program a run ran: the SHA-256 of the flow's exact text. Whitespace and
 * comments count; a resume refuses any change, since deciding which edits keep the recorded
 * outcomes valid would be guessing (docs/decisions/0005-resume.md).
 */
export function flowDigest(source: string): string {
  return `sha256:${createHash('sha256').update(source, 'utf8').digest('hex')}`;
}
