/// <reference lib="dom" />
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { build, type Rollup } from 'vite';
import { CONTENT_SECURITY_POLICY, SECURITY_HEADERS } from '../../shell-common/content-policy.js';
import { quantile } from './judged.js';
import { waitMark } from './page-marks.js';

/**
 * The floor under every cold and warm figure of the history bench: each of those opens a screen
 * in a fresh browser context (a new renderer process, no HTTP cache, no compiled code), and part
 * of that time is spent before the window can ask for anything, whatever the window does. Three
 * pages show how much, timed as the screens are (navigation start → the first frame in which
 * their mark holds), each in a fresh context and served by a plain HTTP server in the bench's
 * own process with the browser shell's own headers (shell-common/content-policy.ts):
 *  - blank: an HTML page whose module script fetches one small answer and puts it in the page
 *    (Chromium's own start and one round trip);
 *  - React: the same fetch made once React and ReactDOM's client are loaded, bundled by Vite in
 *    production mode as the window is, and its answer drawn by React. None of the window's code;
 *  - React without `cross-origin-opener-policy`: the same page, to show that header's part (a
 *    page that sets it cannot use the renderer process its fresh tab started with).
 * Information, never judged (docs/benches.md, "The floor of a fresh context").
 */

export interface PageFloor {
  blank: number[];
  react: number[];
  reactWithoutOpenerPolicy: number[];
}

const DRAWN = "document.getElementById('drawn') !== null";

const REACT_ENTRY = `import { createElement } from 'react';
import { createRoot } from 'react-dom/client';
const root = createRoot(document.getElementById('root'));
fetch('/answer').then((response) => response.text()).then((text) => root.render(createElement('p', { id: 'drawn' }, text)));`;

const BLANK_SCRIPT = `fetch('/answer').then((response) => response.text()).then((text) => {
  const p = document.createElement('p');
  p.id = 'drawn';
  p.textContent = text;
  document.getElementById('root').append(p);
});`;

const page = (script: string): string =>
  `<!doctype html><html lang="en"><head><meta charset="UTF-8"><title>floor</title><script type="module" src="${script}"></script></head><body><div id="root"></div></body></html>`;

/** React and ReactDOM's client with the entry above, minified as `vite build` minifies the window. */
async function reactBundle(root: string): Promise<string> {
  const id = 'hivewatch-page-floor-entry';
  const output = (await build({
    root,
    configFile: false,
    logLevel: 'silent',
    mode: 'production',
    define: { 'process.env.NODE_ENV': '"production"' },
    plugins: [{ name: 'page-floor-entry', resolveId: (source) => (source === id ? `\0${id}` : null), load: (key) => (key === `\0${id}` ? REACT_ENTRY : null) }],
    build: { write: false, rollupOptions: { input: id } },
  })) as Rollup.RollupOutput | Rollup.RollupOutput[];
  const chunks = (Array.isArray(output) ? output : [output]).flatMap((o) => o.output).filter((o): o is Rollup.OutputChunk => o.type === 'chunk');
  if (chunks.length !== 1 || !chunks[0]) throw new Error(`page floor: expected one chunk of React, got ${chunks.length}`);
  return chunks[0].code;
}

interface Served {
  type: string;
  body: string;
  openerPolicy?: false;
}

function listen(files: Record<string, Served>): Promise<Server> {
  const server = createServer((req, res) => {
    const file = files[req.url ?? ''];
    if (!file) return res.writeHead(404).end();
    const headers: Record<string, string> = { ...SECURITY_HEADERS, 'content-security-policy': CONTENT_SECURITY_POLICY };
    if (file.openerPolicy === false) delete headers['cross-origin-opener-policy'];
    res.writeHead(200, { ...headers, 'content-type': file.type, 'cache-control': 'no-store' }).end(file.body);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

async function openOnce(browser: Browser, url: string): Promise<number> {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  try {
    const tab = await context.newPage();
    await tab.goto(url);
    return await waitMark(tab, DRAWN);
  } finally {
    await context.close();
  }
}

/** `samples` fresh-context opens of each page, alternated so that a burst on the machine falls on both. */
export async function measurePageFloor(browser: Browser, root: string, samples: number): Promise<PageFloor> {
  const html = 'text/html; charset=utf-8';
  const js = 'text/javascript; charset=utf-8';
  const server = await listen({
    '/blank': { type: html, body: page('/blank.js') },
    '/blank.js': { type: js, body: BLANK_SCRIPT },
    '/react': { type: html, body: page('/react.js') },
    '/react.js': { type: js, body: await reactBundle(root) },
    '/react-without-opener-policy': { type: html, body: page('/react.js'), openerPolicy: false },
    '/answer': { type: 'text/plain; charset=utf-8', body: 'answered' },
  });
  try {
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const floor: PageFloor = { blank: [], react: [], reactWithoutOpenerPolicy: [] };
    for (let i = 0; i < samples; i++) {
      floor.blank.push(await openOnce(browser, `${base}/blank`));
      floor.react.push(await openOnce(browser, `${base}/react`));
      floor.reactWithoutOpenerPolicy.push(await openOnce(browser, `${base}/react-without-opener-policy`));
    }
    return floor;
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}

/** One line for the report: each page's p50 and p95. */
export function describePageFloor({ blank, react, reactWithoutOpenerPolicy }: PageFloor): string {
  const of = (values: number[]): string => `p50 ${quantile(values, 0.5)} ms, p95 ${quantile(values, 0.95)} ms`;
  return `served with the window's headers, a blank page's one fetch: ${of(blank)}; React and ReactDOM loaded, one fetch drawn: ${of(react)}; the same without cross-origin-opener-policy: ${of(reactWithoutOpenerPolicy)} (${blank.length} fresh contexts each)`;
}
