import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { listDeliveries } from '../../service/alerts/alert-queries.js';
import { addAlertRule } from '../../service/alerts/alerts-api.js';
import { openStore } from '../../store/index.js';
import { JournalBuilder } from '../../store/testing/journal-builder.js';
import type { CliIo } from '../io.js';
import { main } from '../main.js';

/**
 * `hivewatch issues` (the list) reconciles, so it may be the process that journals an issue's
 * `new` row; a serving host then finds that row taken and tells no hook. The alert it owes must
 * be queued in the database before the CLI closes its store, as `issues resolve` queues its
 * follow-ups (docs/triage.md "Alerts"). A real SQLite file, in-process through `main`.
 */

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('hivewatch issues and the alert rules', () => {
  it('the list that announces a new issue queues its new-issue alert before it exits', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hw-cli-issue-alerts-'));
    dirs.push(dir);
    const db = join(dir, 'history.db');
    const setup = await openStore({ path: db });
    await addAlertRule(setup, { when: 'new-issue', webhook: 'http://127.0.0.1:9/hook', throttle: '0' }, 'test');
    const run = new JournalBuilder('run-limited', { start: Date.now() - 60_000, flowName: 'api' })
      .start()
      .runStep([{ attempts: [{ code: 'RUNTIME_RATE_LIMIT', message: 'runtime fake was rate limited: 429 Too Many Requests', origin: 'runtime:fake' }] }])
      .fail();
    await setup.appendEvents(run.events);
    const [group] = await setup.errorGroups();
    await setup.close();

    let err = '';
    const io: CliIo = { out: () => undefined, err: (t) => void (err += t), stdout: process.stdout, env: {} };
    expect(await main(['issues', '--json', '--db', db], io), err).toBe(0);

    const after = await openStore({ path: db });
    try {
      expect((await after.issues.log(group!.fingerprint)).map((row) => row.kind)).toEqual(['new']);
      const deliveries = await after.runStatements((d) => listDeliveries(d));
      expect(deliveries.map((d) => [d.kind, d.subject, d.status])).toEqual([['fire', group!.fingerprint, 'pending']]);
    } finally {
      await after.close();
    }
  });
});
