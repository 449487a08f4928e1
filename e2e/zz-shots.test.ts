import { describe, it } from 'vitest';
import { launchBrowser, openApp } from './support/browser.js';
import { seedCostHistory } from './support/cost-history.js';
import { startServer, tempDir } from './support/server.js';

describe('shots', () => {
  it('shots', async () => {
    const dir = tempDir('shots');
    const h = await seedCostHistory(dir, Date.now());
    const server = await startServer({ dir });
    const browser = await launchBrowser();
    const app = await openApp(browser, server);
    try {
      const { page } = app;
      const shoot = async (hash: string, name: string, ready: string): Promise<void> => {
        await app.go(hash);
        await page.locator(ready).first().waitFor();
        await page.waitForTimeout(800);
        for (const width of [1440, 900]) {
          await page.setViewportSize({ width, height: 900 });
          await page.screenshot({ path: `/tmp/shots/${name}-${width}.png`, fullPage: true });
        }
        await page.setViewportSize({ width: 1440, height: 900 });
      };
      await shoot('#/flows', 'flows', '.flow-item');
      await shoot('#/errors?range=24h', 'errors', '[data-testid="errors-total"]');
      await shoot(`#/runs/${h.failedRun}`, 'run-failed', '.run-header');
      await shoot(`#/runs/${h.noUsageRun}`, 'run-nousage', '.run-header');
      await shoot('#/runs', 'runs', '.runs-table [role="row"]');
      await shoot(`#/compare/${h.recoveredRun}/${h.failedRun}`, 'compare', '.page');
      console.log(app.problems);
    } finally {
      await app.close();
      await browser.close();
      await server.stop();
    }
  }, 180_000);
});
