/** The first non-blank line of a tool's words, trimmed and bounded: what an error message quotes of them. */
export function firstLine(text: string): string {
  return (text.split('\n').find((l) => l.trim() !== '') ?? '').trim().slice(0, 200);
}
