import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import type { FlowInfo } from '../core/service/api.js';
import { launchBrowser, openApp, type AppPage, PAGE_TIMEOUT_MS } from './support/browser.js';
import { startServer, type ServerHandle } from './support/server.js';

/** Names an agent the flow never declares: `check` reports it; `serve` once crashed on it (a TypeError in workspaceModeOf). */
const UNKNOWN_AGENT = `agent assistant:
  runtime: "fake"

session: nobody
  prompt: "Hello"
`;

const GOOD = `agent assistant:
  runtime: "fake"

session: assistant
  prompt: "Hello"
  simulate: "ok:hi"
`;

/**
 * Journey: one flow file in the operator's folder names an unknown agent.
 * `serve` starts and stays up, /api/flows answers, the Flows row of that file names its error at
 * file:line:col, starting it is refused with the reason, and every other flow still starts.
 */
describe('a flow file naming an unknown agent', () => {
  let server: ServerHandle;
  let browser: Browser;
  let app: AppPage;

  beforeAll(async () => {
    server = await startServer({ flows: { 'bad.prose': UNKNOWN_AGENT, 'good.prose': GOOD } });
    browser = await launchBrowser();
    app = await openApp(browser, server, { hash: '#/flows' });
  });

  afterAll(async () => {
    await app?.close();
    await browser?.close();
    await server?.stop();
  });

  it('is a diagnostic in its row, never a crash, and the other flows still start', async () => {
    // serve listed it at start-up (it used to crash right there) and is still answering.
    await expect.poll(() => server.output(), { timeout: PAGE_TIMEOUT_MS }).toMatch(/user\/bad\.prose {2}\(does not check\)/);
    const flows = await server.api<FlowInfo[]>('GET', '/api/flows');
    const bad = flows.find((f) => f.id === 'user/bad.prose');
    expect(bad?.ok).toBe(false);
    expect(bad?.diagnostics[0]).toMatchObject({ file: 'user/bad.prose', line: 4, column: 10, severity: 'error' });
    expect(bad?.diagnostics[0]?.message).toMatch(/unknown agent "nobody"/);

    await expect(server.api('POST', '/api/runs', { flow: 'user/bad.prose' })).rejects.toThrow(/^POST \/api\/runs: 4\d\d .*unknown agent/);
    for (const flow of ['user/good.prose', 'examples/01-happy-path.prose']) {
      const runId = await server.startRun(flow, { virtualClock: true });
      await server.waitForRun(runId, ['completed']);
    }

    const { page } = app;
    const row = page.locator('.flow-item[data-flow-id="user/bad.prose"]');
    const diagnostic = row.getByTestId('flow-diagnostic');
    await diagnostic.waitFor();
    expect(await diagnostic.textContent()).toMatch(/^user\/bad\.prose:4:10 unknown agent "nobody"/);
    // The file's check is a badge of its own, beside the runs' health (a good file's runs may still fail).
    expect(await page.locator('.flow-item[data-flow-id="user/good.prose"] [data-testid="flow-check"]').textContent()).toBe('check ok');
    expect(await row.getByTestId('flow-check').textContent()).toMatch(/^check errors \(\d+\)$/);
    await row.click();
    await page.locator('#flow-title', { hasText: 'bad' }).waitFor();
    await app.screenshot('bad-flow-row');
    expect(await page.getByTestId('screen-error').count()).toBe(0);
    expect(app.problems).toEqual([]);
  });
});
