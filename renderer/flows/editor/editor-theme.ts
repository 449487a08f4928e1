import { EditorView } from '@codemirror/view';

/**
 * The editor in the app's colours: every value is one of the window's custom properties
 * (styles/theme.css), which reach into the editor's shadow root by inheritance, so the one
 * theme follows light and dark as the rest of the window does. The syntax colours are the
 * `--syn-*` properties FlowEditor sets from syntax-colors.ts (held to 4.5:1 on --surface-2,
 * the editor's background, by syntax-colors.test.ts).
 */
export const flowEditorTheme = EditorView.theme({
  '&': {
    color: 'var(--fg)',
    backgroundColor: 'var(--surface-2)',
    border: '1px solid var(--border)',
    borderRadius: 'var(--radius-sm)',
    fontSize: '12.5px',
    maxHeight: '70vh',
  },
  '&.cm-focused': { outline: '2px solid var(--focus)', outlineOffset: '1px' },
  '.cm-scroller': { fontFamily: 'var(--mono)', lineHeight: '19px', overflow: 'auto' },
  '.cm-content': { caretColor: 'var(--fg)', padding: '4px 0', minHeight: '8lh' },
  '.cm-cursor, .cm-dropCursor': { borderLeftColor: 'var(--fg)' },
  '&.cm-focused > .cm-scroller > .cm-selectionLayer .cm-selectionBackground, .cm-selectionBackground': { backgroundColor: 'var(--accent-soft)' },
  '.cm-content ::selection': { backgroundColor: 'var(--accent-soft)' },
  '.cm-gutters': { backgroundColor: 'var(--surface-2)', color: 'var(--fg-faint)', borderRight: '1px solid var(--border)' },
  '.cm-activeLineGutter': { backgroundColor: 'var(--surface-3)', color: 'var(--fg)' },
  '.cm-lineNumbers .cm-gutterElement': { padding: '0 8px 0 10px' },

  '.tok-keyword': { color: 'var(--syn-keyword)', fontWeight: '600' },
  '.tok-property': { color: 'var(--syn-property)' },
  '.tok-string': { color: 'var(--syn-string)' },
  '.tok-number': { color: 'var(--syn-number)' },
  '.tok-comment': { color: 'var(--syn-comment)', fontStyle: 'italic' },
  '.tok-punct': { color: 'var(--syn-punct)' },
  '.tok-invalid': { textDecoration: 'underline wavy var(--fail)' },

  // The message under a line: its caret is padded in the same font, so it stands under the column.
  '.cm-flow-diagnostic': {
    padding: '0 2px 0 6px',
    // A long message wraps at the editor's width instead of widening it (no width of its own, at
    // least the lines' width); the caret keeps its column.
    whiteSpace: 'pre-wrap',
    boxSizing: 'border-box',
    width: '0',
    minWidth: '100%',
    color: 'var(--fail)',
    backgroundColor: 'var(--fail-soft)',
    fontFamily: 'var(--mono)',
  },
  '.cm-flow-diagnostic-warning': { color: 'var(--warn)', backgroundColor: 'var(--warn-soft)' },
  '.cm-flow-diagnostic-where': { textDecoration: 'underline dotted' },

  // The lint extension's tooltip, panel and gutter markers, in the window's colours.
  '.cm-tooltip': { backgroundColor: 'var(--surface)', color: 'var(--fg)', border: '1px solid var(--border-strong)', boxShadow: 'var(--shadow-lg)' },
  '.cm-diagnostic': { fontFamily: 'var(--font)' },
  '.cm-diagnostic-error': { borderLeftColor: 'var(--fail)' },
  '.cm-diagnostic-warning': { borderLeftColor: 'var(--warn)' },
  '.cm-panels': { backgroundColor: 'var(--surface)', color: 'var(--fg)' },
  '.cm-panels-bottom': { borderTop: '1px solid var(--border)' },
  '.cm-panel.cm-panel-lint ul [aria-selected]': { backgroundColor: 'var(--accent-soft)', color: 'var(--fg)' },
  '.cm-panel.cm-panel-lint ul:focus [aria-selected]': { backgroundColor: 'var(--accent-soft)', color: 'var(--fg)' },
  '.cm-panel.cm-panel-lint button': { color: 'var(--fg)' },
});
