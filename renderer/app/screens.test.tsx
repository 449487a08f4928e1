import { describe, expect, it } from 'vitest';
import { parseHash } from './router.js';
import { AlertsScreen, CompareScreen, ErrorsScreen, FlowsScreen, IssueScreen, RunDetailScreen, routedScreen } from './screens.js';

describe('which screen a route shows (the window draws it and asks for its chunk from the same answer)', () => {
  it.each([
    ['#/runs/run_a1', RunDetailScreen, { runId: 'run_a1' }],
    ['#/errors?range=7d', ErrorsScreen, {}],
    ['#/issues/2be59127f9565480', IssueScreen, { id: '2be59127f9565480' }],
    ['#/compare/run_a/run_b', CompareScreen, { left: 'run_a', right: 'run_b' }],
    ['#/settings/alerts', AlertsScreen, {}],
    ['#/flows', FlowsScreen, { flowId: null }],
    ['#/flows/user/deploy.prose', FlowsScreen, { flowId: 'user/deploy.prose' }],
  ] as const)('%s', (hash, chunk, props) => {
    const routed = routedScreen(parseHash(hash));
    expect(routed?.chunk).toBe(chunk);
    const element = routed?.element();
    expect(element?.type).toBe(chunk.Screen);
    expect(element?.props).toEqual(props);
  });

  it('gives no screen of its own to Runs and to routes no screen has, which show Runs and ask for no chunk', () => {
    for (const hash of ['', '#/runs', '#/runs?status=failed', '#/issues', '#/compare/run_a', '#/settings', '#/settings/other', '#/nowhere']) {
      expect(routedScreen(parseHash(hash)), hash).toBeNull();
    }
  });

  it('keys a run and an issue by their id, so moving between two of them mounts the screen afresh', () => {
    expect(routedScreen(parseHash('#/runs/run_a1'))?.element().key).toBe('run_a1');
    expect(routedScreen(parseHash('#/issues/ab12'))?.element().key).toBe('ab12');
  });
});
