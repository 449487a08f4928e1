import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addAlertRule, listAlertRules } from '../../../service/alerts/alerts-api.js';
import { openStore } from '../../open.js';
import { testEngines } from '../../testing/engines.js';
import { query, undoMigrationsAfter } from '../../testing/undo-migrations.js';

/**
 * Migration 26 on every engine: a rule stored before keeps its webhook and delivers only there
 * (desktop 0); after it a rule may go to the desktop alone; and the database itself refuses a
 * rule with no channel, whatever writes it.
 */

const { engines, start, stop } = testEngines('migration-26');
beforeAll(start, 60_000);
afterAll(stop);

const T0 = Date.UTC(2026, 10, 29);

describe.each(engines)('migration 26 on $name', (engine) => {
  it('keeps every rule with its webhook and no desktop, then takes desktop-only rules and refuses channel-less ones', async () => {
    const location = await engine.fresh();
    const store = await openStore({ path: location, now: () => T0 });
    const before = await addAlertRule(store, { when: 'run-failed', webhook: 'https://hooks.example.com/a?token=s', throttle: '0' }, 'test', T0);
    await store.close();

    await undoMigrationsAfter(location, 25);
    const columns = Object.keys((await query(location, 'SELECT * FROM alert_rules'))[0] ?? {});
    expect(columns).not.toContain('desktop');
    const migrated = await openStore({ path: location, now: () => T0 });
    try {
      const after = await addAlertRule(migrated, { when: 'approval-pending-longer-than=10m', desktop: true }, 'test', T0 + 1);
      expect((await listAlertRules(migrated)).map((r) => [r.id, r.webhook, r.desktop, r.channels])).toEqual([
        [before.id, 'https://hooks.example.com/…', false, 'webhook'],
        [after.id, null, true, 'desktop'],
      ]);
    } finally {
      await migrated.close();
    }
    const kept = await query(location, `SELECT webhook, desktop FROM alert_rules WHERE id = '${before.id}'`);
    expect(kept.map((r) => [r.webhook, Number(r.desktop)])).toEqual([['https://hooks.example.com/a?token=s', 0]]);
    await expect(
      query(
        location,
        `INSERT INTO alert_rules (id, condition, format, throttle_ms, created_at, created_by, desktop) VALUES ('alr_none', 'run-failed', 'json', 0, ${T0}, 'test', 0)`,
      ),
    ).rejects.toThrow(/CHECK constraint|alert_rules_channel/);
  });
});
