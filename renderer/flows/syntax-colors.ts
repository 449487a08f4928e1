import type { HighlightKind } from '../../core/service/api.js';

/**
 * The colours of highlighted flow source, per theme. They live here rather than in the
 * stylesheet so a unit test can hold each one to WCAG's 4.5:1 on the source panel
 * (syntax-colors.test.ts); FlowEditor sets them as `--syn-*` properties on its host, which the
 * editor's theme reads.
 */

export type SyntaxColors = Record<Exclude<HighlightKind, 'name' | 'invalid'>, string> & { panel: string };

export const SYNTAX_COLORS = {
  light: {
    keyword: '#7433e0',
    property: '#0b6bcb',
    string: '#1a7f37',
    number: '#9a4d00',
    comment: '#5f6873',
    punct: '#5d6577',
    // The theme's --surface-2, the editor's background.
    panel: '#f1f3f6',
  },
  dark: {
    keyword: '#c8a2ff',
    property: '#79b8ff',
    string: '#7ee2a0',
    number: '#ffb366',
    comment: '#98a1b2',
    punct: '#9aa3b5',
    panel: '#1c212b',
  },
} as const satisfies Record<'light' | 'dark', SyntaxColors>;

/** The custom properties FlowEditor sets on the editor's host. */
export function syntaxColorVars(theme: 'light' | 'dark'): Record<string, string> {
  const c = SYNTAX_COLORS[theme];
  return {
    '--syn-keyword': c.keyword,
    '--syn-property': c.property,
    '--syn-string': c.string,
    '--syn-number': c.number,
    '--syn-comment': c.comment,
    '--syn-punct': c.punct,
  };
}
