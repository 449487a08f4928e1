import { annotateSource, caretPadding } from './source-lines.js';
import type { Diagnostic, HighlightSpan } from '../../core/service/api.js';
import type { CSSProperties } from 'react';
import { useDarkMode } from '../lib/theme.js';
import { segmentsOf, spansByLine } from './highlight-segments.js';
import { syntaxColorVars } from './syntax-colors.js';

/**
 * The flow's text with line numbers, coloured by the checker's lexer (`highlight`, computed for
 * this very text); each diagnostic sits right under its line, caret at its column.
 */
export function FlowSource({ source, diagnostics, highlight }: { source: string; diagnostics: readonly Diagnostic[]; highlight: readonly HighlightSpan[] }) {
  const lines = annotateSource(source, diagnostics);
  const spans = spansByLine(highlight);
  const colors = syntaxColorVars(useDarkMode() ? 'dark' : 'light') as CSSProperties;
  return (
    // Focusable so a keyboard can scroll a source wider than the pane (WCAG 2.1.1).
    <div className="source" role="region" aria-label="Flow source" tabIndex={0} style={colors}>
      <table className="source-table">
        <tbody>
          {lines.flatMap((line) => [
            <tr key={`l${line.n}`} className={line.diagnostics.length > 0 ? 'has-diagnostic' : ''}>
              <td className="line-no">{line.n}</td>
              <td className="line-text">
                <code>
                  {line.text === ''
                    ? ' '
                    : segmentsOf(line.text, spans.get(line.n)).map((segment, i) =>
                        segment.kind === null ? (
                          segment.text
                        ) : (
                          <span key={i} className={`tok tok-${segment.kind}`}>
                            {segment.text}
                          </span>
                        ),
                      )}
                </code>
              </td>
            </tr>,
            ...line.diagnostics.map((d, i) => (
              <tr key={`d${line.n}-${i}`} className={`diagnostic diagnostic-${d.severity}`} data-line={d.line} data-column={d.column}>
                <td className="line-no" aria-hidden="true" />
                <td className="line-text">
                  <code className="caret-line">
                    {caretPadding(line.text, d.column)}^ <span className="diagnostic-where">{d.line}:{d.column}</span> {d.severity}: {d.message}
                  </code>
                </td>
              </tr>
            )),
          ])}
        </tbody>
      </table>
    </div>
  );
}
