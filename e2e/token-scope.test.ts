import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runRow } from './support/browser.js';
import { useJourney } from './support/journey.js';

/**
 * Journey: the window's access credential stays on its port. Another
 * listener on 127.0.0.1 (any other port: cookies ignore ports, storage does not) is visited by
 * the same browser while the window is open, and again after a copied link was opened in a new
 * tab; it must receive no cookie and no token (not in a header, not in its URL), and a page it
 * serves must read neither a cookie nor the stored token. Meanwhile the copied link works and its
 * live stream stays authorised.
 */

interface Seen {
  url: string;
  headers: IncomingHttpHeaders;
}

/** What a page of the other origin could read: posted back to the listener. */
const PROBE_PAGE = `<!doctype html><meta charset="utf-8"><title>probe</title><script>
  let stored = null;
  try { stored = localStorage.getItem('hivewatch.token'); } catch (e) { stored = 'error: ' + e.message; }
  fetch('/report', { method: 'POST', body: JSON.stringify({ cookie: document.cookie, stored }) });
</script>`;

function startListener(): Promise<{ server: Server; origin: string; seen: Seen[]; reports: { cookie: string; stored: string | null }[] }> {
  const seen: Seen[] = [];
  const reports: { cookie: string; stored: string | null }[] = [];
  const server = createServer((req, res) => {
    seen.push({ url: req.url ?? '', headers: req.headers });
    if (req.url === '/report') {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        reports.push(JSON.parse(body) as { cookie: string; stored: string | null });
        res.writeHead(204).end();
      });
      return;
    }
    if (req.url === '/probe.html') {
      res.writeHead(200, { 'content-type': 'text/html' }).end(PROBE_PAGE);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/plain' }).end('listener');
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as AddressInfo).port;
      resolve({ server, origin: `http://127.0.0.1:${port}`, seen, reports });
    });
  });
}

describe('the access credential stays on its port', () => {
  const journey = useJourney({ hash: '#/runs' });
  let listener: Awaited<ReturnType<typeof startListener>>;
  beforeAll(async () => {
    listener = await startListener();
  });
  afterAll(async () => {
    listener.server.closeAllConnections();
    await new Promise<void>((resolve) => listener.server.close(() => resolve()));
  });

  /** The browser visits the other port the ways a cookie would go along: its API paths (Path=/api), the stream's path, a page. */
  const visitListener = async (context: BrowserContext): Promise<void> => {
    const tab = await context.newPage();
    for (const path of ['/api/runs', '/api/stream', '/']) await tab.goto(`${listener.origin}${path}`);
    const reported = tab.waitForResponse((response) => response.url() === `${listener.origin}/report`);
    await tab.goto(`${listener.origin}/probe.html`);
    await reported;
    await tab.close();
  };

  const leaks = (token: string): string[] =>
    listener.seen.flatMap((request) => {
      const found: string[] = [];
      if (request.headers.cookie !== undefined) found.push(`${request.url}: Cookie: ${request.headers.cookie}`);
      for (const [name, value] of Object.entries(request.headers)) {
        if (String(value).includes(token)) found.push(`${request.url}: ${name} carries the token`);
      }
      if (request.url.includes(token)) found.push(`${request.url}: the URL carries the token`);
      return found;
    });

  it('a listener on another port gets no cookie and no token, with the window open and with a copied link in a new tab, which works live', async () => {
    const { server, app } = journey;
    const { page, context } = app;
    const runId = await server.startRun('examples/01-happy-path.prose', { virtualClock: true });
    await runRow(page, runId).waitFor();
    await page.locator('[data-testid="connection"][data-state="live"]').waitFor();
    // The token lives in this origin's storage, never in a cookie.
    expect(await page.evaluate(() => window.localStorage.getItem('hivewatch.token'))).toBe(server.token);
    expect(await context.cookies()).toEqual([]);

    await visitListener(context);
    expect(leaks(server.token)).toEqual([]);

    // The copied link: what the address bar shows (the token was taken out of it).
    const copied = page.url();
    expect(copied).not.toContain('token=');
    const tab = await context.newPage();
    await tab.goto(`${server.origin}/#/runs/${encodeURIComponent(runId)}`);
    await tab.locator('.run-header .badge.status[data-status="completed"]').waitFor();
    await tab.goto(copied);
    await tab.locator('[data-testid="connection"][data-state="live"]').waitFor();
    // Live in the new tab: a run started now shows up there by itself.
    const second = await server.startRun('examples/01-happy-path.prose', { virtualClock: true });
    await runRow(tab, second).waitFor();

    await visitListener(context);
    expect(leaks(server.token)).toEqual([]);
    expect(listener.reports).toEqual([
      { cookie: '', stored: null },
      { cookie: '', stored: null },
    ]);
    // The listener really was visited (a check that sees nothing would prove nothing).
    expect(listener.seen.filter((r) => r.url === '/api/runs')).toHaveLength(2);
    expect(await context.cookies()).toEqual([]);
    await tab.close();
    expect(app.problems).toEqual([]);
  });
});
