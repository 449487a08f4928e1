import { annotateSource, caretPadding } from './source-lines.js';
import type { Diagnostic } from '../../core/service/api.js';

/** The flow's text with line numbers; each diagnostic sits right under its line, caret at its column. */
export function FlowSource({ source, diagnostics }: { source: string; diagnostics: readonly Diagnostic[] }) {
  const lines = annotateSource(source, diagnostics);
  return (
    <div className="source" role="region" aria-label="Flow source">
      <table className="source-table">
        <tbody>
          {lines.flatMap((line) => [
            <tr key={`l${line.n}`} className={line.diagnostics.length > 0 ? 'has-diagnostic' : ''}>
              <td className="line-no">{line.n}</td>
              <td className="line-text">
                <code>{line.text || ' '}</code>
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
