import { StateEffect, StateField, type EditorState, type Extension, type Range } from '@codemirror/state';
import { Decoration, EditorView, WidgetType, type DecorationSet } from '@codemirror/view';
import { caretPadding, type KindRange, type PlacedDiagnostic } from './source-positions.js';

/**
 * What the service's check said about the text now in the editor, as decorations: the
 * highlighter's colours (marks named `tok-<kind>`) and each diagnostic's message as a block
 * under its line, a caret at its column. Both are set together, only for the text that was
 * checked, and mapped through every edit until the next check replaces them, so colours and
 * messages stay on the characters they were about while the operator types.
 */

export interface CheckedMarks {
  highlight: readonly KindRange[];
  diagnostics: readonly PlacedDiagnostic[];
}

export const setCheckedMarks = StateEffect.define<CheckedMarks>();

const markOf = new Map<string, Decoration>();
function tokenMark(kind: string): Decoration {
  let mark = markOf.get(kind);
  if (!mark) {
    mark = Decoration.mark({ class: `tok-${kind}` });
    markOf.set(kind, mark);
  }
  return mark;
}

/** One diagnostic's line under the source line it points into: "   ^ 4:10 error: unknown agent". */
class DiagnosticLine extends WidgetType {
  constructor(
    readonly diagnostic: PlacedDiagnostic,
    readonly padding: string,
  ) {
    super();
  }

  override eq(other: DiagnosticLine): boolean {
    const a = this.diagnostic;
    const b = other.diagnostic;
    return this.padding === other.padding && a.line === b.line && a.column === b.column && a.severity === b.severity && a.message === b.message;
  }

  toDOM(): HTMLElement {
    const d = this.diagnostic;
    const line = document.createElement('div');
    line.className = `cm-flow-diagnostic cm-flow-diagnostic-${d.severity}`;
    line.dataset.line = String(d.line);
    line.dataset.column = String(d.column);
    const caret = document.createElement('span');
    caret.setAttribute('aria-hidden', 'true');
    caret.textContent = `${this.padding}^ `;
    const where = document.createElement('span');
    where.className = 'cm-flow-diagnostic-where';
    where.textContent = `${d.line}:${d.column}`;
    line.append(caret, where, ` ${d.severity}: ${d.message}`);
    return line;
  }

  override ignoreEvent(): boolean {
    return false;
  }
}

function decorationsOf(state: EditorState, marks: CheckedMarks): { tokens: DecorationSet; messages: DecorationSet } {
  const length = state.doc.length;
  const tokens: Range<Decoration>[] = [];
  for (const range of marks.highlight) {
    if (range.to <= length && range.from < range.to) tokens.push(tokenMark(range.kind).range(range.from, range.to));
  }
  const messages: Range<Decoration>[] = [];
  marks.diagnostics.forEach((d, i) => {
    if (d.from > length) return;
    const line = state.doc.lineAt(d.from);
    const widget = new DiagnosticLine(d, caretPadding(line.text, d.from - line.from + 1));
    // side orders the messages of one line by column; a block widget at the line's end sits under it.
    messages.push(Decoration.widget({ widget, block: true, side: 1 + i }).range(line.to));
  });
  return { tokens: Decoration.set(tokens, true), messages: Decoration.set(messages, true) };
}

const checkedField = StateField.define<{ tokens: DecorationSet; messages: DecorationSet }>({
  create: () => ({ tokens: Decoration.none, messages: Decoration.none }),
  update(value, tr) {
    let next = tr.docChanged ? { tokens: value.tokens.map(tr.changes), messages: value.messages.map(tr.changes) } : value;
    for (const effect of tr.effects) if (effect.is(setCheckedMarks)) next = decorationsOf(tr.state, effect.value);
    return next;
  },
  provide: (field) => [EditorView.decorations.from(field, (value) => value.tokens), EditorView.decorations.from(field, (value) => value.messages)],
});

export function checkedDecorations(): Extension {
  return checkedField;
}
