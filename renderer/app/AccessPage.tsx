import { useState, type FormEvent } from 'react';

/**
 * What a browser without this server's token sees instead of API errors: a copied link opened in
 * a fresh profile (no token kept for this origin), or a token from another database. It says how
 * to get in — open the link `hivewatch serve` printed, or paste the token — and pasting loads the
 * window the way the printed link does (`?token=`, which the page keeps and removes from the
 * address bar, see api/index.ts).
 */
export function AccessPage({ reason }: { reason: 'missing' | 'wrong' }) {
  const [token, setToken] = useState('');
  const host = window.location.host;
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    const value = token.trim();
    if (value === '') return;
    window.location.replace(`${window.location.pathname}?token=${encodeURIComponent(value)}${window.location.hash}`);
  };
  return (
    <main className="access-page" data-testid="access-page">
      <h1>Open Hivewatch with its link</h1>
      {reason === 'missing' ? (
        <p>
          This browser has no access token for the Hivewatch at <code>{host}</code> yet (a copied link carries none).
        </p>
      ) : (
        <p>
          The token this browser keeps for <code>{host}</code> is not this server’s (wrong token: each database keeps its own).
        </p>
      )}
      <h2>To get in</h2>
      <ol>
        <li>
          Open the link <code>hivewatch serve</code> printed in its terminal, the one after <strong>Open:</strong> that ends in <code>?token=…</code>. Lost it?
          Run <code>hivewatch serve</code> again on the same database: it prints the same link.
        </li>
        <li>
          Or paste the token here (the part after <code>?token=</code>):
        </li>
      </ol>
      <form className="access-form" onSubmit={submit}>
        <label htmlFor="access-token">Access token</label>
        <input id="access-token" type="text" autoComplete="off" spellCheck={false} value={token} onChange={(e) => setToken(e.currentTarget.value)} />
        <button type="submit" className="primary" disabled={token.trim() === ''}>
          Open Hivewatch
        </button>
      </form>
      <p className="muted">The token stays in this browser for this address only; other sites and ports never see it.</p>
    </main>
  );
}
