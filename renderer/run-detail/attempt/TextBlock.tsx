import { CopyButton } from '../../components/CopyButton.js';
import { prettyJson } from '../../lib/json-text.js';

/**
 * A prompt or an output: JSON laid out for reading (lib/json-text.ts, values exactly as
 * journaled), anything else as written, with a button that copies the text as journaled.
 */
export function TextBlock({ text, what, testId }: { text: string; what: string; testId: string }) {
  const shown = prettyJson(text);
  return (
    <div className="text-block">
      <CopyButton text={text} what={what} />
      <pre className={`inspector-text${shown.json ? ' json' : ''}`} data-testid={testId} data-json={shown.json || undefined}>
        {shown.text}
      </pre>
    </div>
  );
}
