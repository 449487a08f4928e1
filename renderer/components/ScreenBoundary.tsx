import { Component, type ErrorInfo, type ReactNode } from 'react';

/**
 * Around each screen: a screen that throws while loading (a chunk that could not be fetched even
 * after retries) or rendering shows what happened and a way back, never a blank window.
 * "Try again" re-renders the screen; "Reload" reloads the window at the same address.
 */

interface Props {
  screen: string;
  /** The window's recoveries (useRecoveries): a screen that failed while the server was away tries again when it is back. */
  recoveries?: number;
  /** Before "Try again" re-renders: a lazily loaded screen makes its loader afresh. */
  onRetry?: () => void;
  children: ReactNode;
}

interface State {
  error: Error | null;
}

export class ScreenBoundary extends Component<Props, State> {
  override state: State = { error: null };

  static getDerivedStateFromError(error: unknown): State {
    return { error: error instanceof Error ? error : new Error(String(error)) };
  }

  override componentDidUpdate(previous: Props): void {
    if (this.state.error !== null && previous.recoveries !== this.props.recoveries) {
      this.props.onRetry?.();
      this.setState({ error: null });
    }
  }

  override componentDidCatch(error: unknown, info: ErrorInfo): void {
    console.error(`the ${this.props.screen} screen failed`, error, info.componentStack);
  }

  override render(): ReactNode {
    const { error } = this.state;
    if (error === null) return this.props.children;
    const chunk = /dynamically imported module|Loading chunk|error loading/i.test(error.message);
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
