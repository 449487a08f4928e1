import { describe, expect, it } from 'vitest';
import { composeTitle, routeTitle, runTitle } from './page-title.js';
import { parseHash } from './router.js';

describe('the page title', () => {
  it('names the screen, then the app', () => {
    expect(composeTitle(routeTitle(parseHash('#/runs?status=failed')), 0)).toBe('Runs · Hivewatch');
    expect(composeTitle(routeTitle(parseHash('#/errors?range=7d')), 0)).toBe('Errors · Hivewatch');
    expect(composeTitle(routeTitle(parseHash('#/flows/user/deploy.prose')), 0)).toBe('user/deploy.prose · Flows · Hivewatch');
    expect(composeTitle(routeTitle(parseHash('#/compare/run_a/run_b')), 0)).toBe('Compare runs · Hivewatch');
    expect(composeTitle(routeTitle(parseHash('#/settings/alerts')), 0)).toBe('Alerts · Settings · Hivewatch');
  });

  it('leaves a run’s page to name its run and status', () => {
    expect(routeTitle(parseHash('#/runs/run_18f2a9c0d1e2f3a4'))).toBeNull();
    expect(composeTitle(runTitle('run_18f2a9c0d1e2f3a4', 'failed'), 0)).toBe('Run …d1e2f3a4 failed · Hivewatch');
    expect(runTitle('run_18f2a9c0d1e2f3a4', null)).toBe('Run …d1e2f3a4');
  });

  it('keeps the unseen failures’ count in front', () => {
    expect(composeTitle('Runs', 2)).toBe('(2) Runs · Hivewatch');
    expect(composeTitle(null, 1)).toBe('(1) Hivewatch');
  });
});
