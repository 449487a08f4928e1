import { describe, expect, it, vi } from 'vitest';
import { ScreenBoundary } from './ScreenBoundary.js';

/**
 * What a screen that failed does when the server comes back (its `recoveries` count moves on):
 * one that failed while running tries again in place; one whose code could not be loaded reloads
 * the window, since the browser keeps the chunks that failed in the outage failed for the page's
 * life (e2e/recovery.test.ts watches it in Chromium).
 */
function failedBoundary(message: string) {
  const reload = vi.fn();
  const onRetry = vi.fn();
  const boundary = new ScreenBoundary({ screen: 'errors', recoveries: 1, reload, onRetry, children: null });
  boundary.state = { error: new Error(message) };
  const setState = vi.spyOn(boundary, 'setState').mockImplementation(() => undefined);
  const recover = (): void => {
    const previous = boundary.props;
    (boundary as { props: typeof previous }).props = { ...previous, recoveries: 2 };
    boundary.componentDidUpdate(previous);
  };
  return { reload, onRetry, setState, recover };
}

describe('a failed screen when the server is back', () => {
  it('reloads the window when its code could not be loaded', () => {
    const { reload, onRetry, setState, recover } = failedBoundary(
      'Failed to fetch dynamically imported module: http://127.0.0.1:1/assets/ErrorsPage-x.js?retry=a-4',
    );
    recover();
    expect(reload).toHaveBeenCalledTimes(1);
    expect(onRetry).not.toHaveBeenCalled();
    expect(setState).not.toHaveBeenCalled();
  });

  it('tries again in place when it failed otherwise', () => {
    const { reload, onRetry, setState, recover } = failedBoundary('Could not load the issues: fetch failed');
    recover();
    expect(reload).not.toHaveBeenCalled();
    expect(onRetry).toHaveBeenCalledTimes(1);
    expect(setState).toHaveBeenCalledWith({ error: null });
  });
});
