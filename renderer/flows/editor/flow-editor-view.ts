import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import { lintGutter, lintKeymap, setDiagnostics, type Diagnostic as LintDiagnostic } from '@codemirror/lint';
import { Annotation, Compartment, EditorSelection, EditorState } from '@codemirror/state';
import { drawSelection, EditorView, highlightActiveLineGutter, highlightSpecialChars, keymap, lineNumbers } from '@codemirror/view';
import type { Diagnostic, HighlightSpan } from '../../../core/service/api.js';
import { checkedDecorations, setCheckedMarks } from './checked-decorations.js';
import { flowEditorTheme } from './editor-theme.js';
import { lineMap, offsetAt, placeDiagnostics, spanRanges } from './source-positions.js';

/**
 * The flow editor itself (CodeMirror 6), a chunk of its own that the Flows screen loads when a
 * flow is opened. It knows no flow syntax of its own: the colours and the diagnostics are the
 * service's check of the very text shown (`core/flow/syntax/highlight.ts` and the checker, through
 * checkFlow / listFlows), so the editor can never disagree with `check`. See docs/decisions/0010-flow-editor.md,
 * "The flow editor".
 */

/** The service's check of one text: what `setChecked` is handed. */
export interface CheckedSource {
  source: string;
  diagnostics: readonly Diagnostic[];
  highlight: readonly HighlightSpan[];
}

export interface FlowEditorOptions {
  /** Where the editor mounts: a shadow root, whose adopted style sheet holds CodeMirror's styles (the window's CSP refuses a <style> element). */
  root: ShadowRoot;
  doc: string;
  readOnly: boolean;
  label: string;
  dark: boolean;
  onChange: (doc: string) => void;
}

export interface FlowEditorHandle {
  /** Replaces the text when it differs (the file shown, a draft reset). */
  setDoc(doc: string): void;
  setReadOnly(readOnly: boolean, label: string): void;
  setDark(dark: boolean): void;
  /** Shows a check's colours and diagnostics if it checked the text now shown; a stale one is ignored (the next check is coming). */
  setChecked(checked: CheckedSource): void;
  /** Puts the cursor at a 1-based line and column, scrolls there and focuses the editor. */
  reveal(line: number, column: number): void;
  destroy(): void;
}

/** Marks a change the window made (a new file shown), not one the operator typed. */
const external = Annotation.define<boolean>();

/**
 * Read-only or not, and the text's accessible name. The content says tabindex 0 (it is in the
 * tab order as an editable element anyway): axe looks for a focusable element by that attribute
 * inside a scrolled region, and a long line scrolls the editor sideways.
 */
function access(readOnly: boolean, label: string) {
  const names = { 'aria-label': label, tabindex: '0' };
  return [EditorState.readOnly.of(readOnly), EditorView.contentAttributes.of(readOnly ? { ...names, 'aria-readonly': 'true' } : names)];
}

function lintDiagnostics(text: string, diagnostics: readonly Diagnostic[]): LintDiagnostic[] {
  return placeDiagnostics(text, diagnostics).map((d) => ({
    from: d.from,
    to: d.to,
    severity: d.severity,
    message: `${d.line}:${d.column} ${d.message}`,
    source: 'check',
  }));
}

export function mountFlowEditor(options: FlowEditorOptions): FlowEditorHandle {
  const accessConf = new Compartment();
  const darkConf = new Compartment();
  const view = new EditorView({
    root: options.root,
    parent: options.root,
    state: EditorState.create({
      doc: options.doc,
      extensions: [
        lineNumbers(),
        highlightActiveLineGutter(),
        highlightSpecialChars(),
        history(),
        drawSelection(),
        EditorState.tabSize.of(2),
        // Tab indents (the flow language is indented); Escape then Tab leaves the editor, as
        // CodeMirror provides, so the keyboard is never trapped.
        keymap.of([...defaultKeymap, ...historyKeymap, ...lintKeymap, indentWithTab]),
        lintGutter(),
        checkedDecorations(),
        flowEditorTheme,
        darkConf.of(EditorView.darkTheme.of(options.dark)),
        accessConf.of(access(options.readOnly, options.label)),
        EditorView.updateListener.of((update) => {
          if (update.docChanged && !update.transactions.some((tr) => tr.annotation(external))) options.onChange(update.state.doc.toString());
        }),
      ],
    }),
  });

  return {
    setDoc(doc) {
      if (doc === view.state.doc.toString()) return;
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: doc }, annotations: external.of(true) });
    },
    setReadOnly(readOnly, label) {
      view.dispatch({ effects: accessConf.reconfigure(access(readOnly, label)) });
    },
    setDark(dark) {
      view.dispatch({ effects: darkConf.reconfigure(EditorView.darkTheme.of(dark)) });
    },
    setChecked(checked) {
      const text = view.state.doc.toString();
      if (checked.source !== text) return;
      const map = lineMap(text);
      const lint = setDiagnostics(view.state, lintDiagnostics(text, checked.diagnostics));
      const marks = setCheckedMarks.of({ highlight: spanRanges(text, checked.highlight, map), diagnostics: placeDiagnostics(text, checked.diagnostics, map) });
      view.dispatch({ ...lint, effects: [...[lint.effects ?? []].flat(), marks] });
    },
    reveal(line, column) {
      const at = offsetAt(lineMap(view.state.doc.toString()), line, column);
      view.dispatch({ selection: EditorSelection.cursor(at), scrollIntoView: true });
      view.focus();
    },
    destroy() {
      view.destroy();
    },
  };
}
