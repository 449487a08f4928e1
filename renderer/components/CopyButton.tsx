import { useEffect, useState } from 'react';

/**
 * Copies a text to the clipboard and says so in its own label for a moment ("Copied", or
 * "Copy failed" where the window may not write the clipboard); the label is a live region.
 */
export function CopyButton({ text, what }: { text: string; what: string }) {
  const [said, setSaid] = useState<'Copied' | 'Copy failed' | null>(null);
  useEffect(() => {
    if (said === null) return;
    const timer = setTimeout(() => setSaid(null), 2_000);
    return () => clearTimeout(timer);
  }, [said]);
  const copy = async (): Promise<void> => {
    try {
      await navigator.clipboard.writeText(text);
      setSaid('Copied');
    } catch {
      setSaid('Copy failed');
    }
  };
  return (
    <button type="button" className="small copy-button" onClick={() => void copy()} aria-label={said ?? `Copy ${what}`} data-testid="copy-button">
      <span aria-live="polite">{said ?? 'Copy'}</span>
    </button>
  );
}
