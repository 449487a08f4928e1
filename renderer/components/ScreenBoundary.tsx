import { Component, type ErrorInfo, type ReactNode } from 'react';

/**
 * Around each screen: a screen that throws while loading (a chunk that could not be fetched even
 * after retries) or rendering shows what happened and a way back, never a blank window.
 * "Try again" re-renders the screen; "Reload" reloads the window at the same address.
 *
 * When the server comes back, a screen that failed while it was away tries again by itself; one
 * whose code could not be loaded reloads the window instead (at the same address: the route is in
 * the hash). Chromium keeps a module whose fetch failed as failed for the page's life, and a
 * screen's chunk imports chunks it shares with other screens, fetched in the same outage: a fresh
 * copy of the screen's own chunk (app/retry-import.ts) still imports those, and fails. Only a new
 * page fetches them again.
 */

interface Props {
  screen: string;
  /** The window's recoveries (useRecoveries): a screen that failed while the server was away tries again when it is back. */
  recoveries?: number;
  /** Before "Try again" re-renders: a lazily loaded screen makes its loader afresh. */
  onRetry?: () => void;
  /** Reloads the window (tests pass their own). */
  reload?: () => void;
  children: ReactNode;
}

interface State {
  error: Error | null;
}

/** Whether `error` is a chunk (the screen's code) that could not be loaded, not the screen failing. */
function isChunkLoadError(error: Error): boolean {
  return /dynamically imported module|Loading chunk|error loading/i.test(error.message);
}

export class ScreenBoundary extends Component<Props, State> {
  override state: State = { error: null };

  static getDerivedStateFromError(error: unknown): State {
    return { error: error instanceof Error ? error : new Error(String(error)) };
  }

  override componentDidUpdate(previous: Props): void {
    const { error } = this.state;
    if (error === null || previous.recoveries === this.props.recoveries) return;
    if (isChunkLoadError(error)) {
      (this.props.reload ?? (() => window.location.reload()))();
      return;
    }
    this.props.onRetry?.();
    this.setState({ error: null });
  }

  override componentDidCatch(error: unknown, info: ErrorInfo): void {
    console.error(`the ${this.props.screen} screen failed`, error, info.componentStack);
  }

  override render(): ReactNode {
    const { error } = this.state;
    if (error === null) return this.props.children;
    const chunk = isChunkLoadError(error);
    return (
      <div className="state state-error screen-error" role="alert" data-testid="screen-error">
        <strong>{chunk ? `The ${this.props.screen} screen could not be loaded` : `The ${this.props.screen} screen failed`}</strong>
        <p className="state-detail">{error.message}</p>
        <div className="state-actions">
          <button
            type="button"
            onClick={() => {
              this.props.onRetry?.();
              this.setState({ error: null });
            }}
          >
            Try again
          </button>
          <button type="button" onClick={() => window.location.reload()}>
            Reload
          </button>
        </div>
      </div>
    );
  }
}
