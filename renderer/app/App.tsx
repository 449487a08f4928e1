import { useEffect, useRef, useState, type MouseEvent } from 'react';
import { ScreenBoundary } from '../components/ScreenBoundary.js';
import { RunsPage } from '../runs/RunsPage.js';
import { useNow } from '../lib/use-now.js';
import { NotificationsButton } from '../notify/NotificationsButton.js';
import { connectionLabel, unreachableMessage } from '../live/connection.js';
import { useApi, useRecoveries, useRunsSnapshot, useTokenRefused } from './api-context.js';
import { AccessPage } from './AccessPage.js';
import { DatabaseBanner } from './DatabaseBanner.js';
import { prefetchErrors } from '../errors/errors-loads.js';
import { focusSearchField, focusSearchOnNextMount, useShortcuts } from './keyboard.js';
import { navigate, useRoute } from './router.js';
import { routeTitle, useScreenTitle } from './page-title.js';
import { ShortcutSheet } from './ShortcutSheet.js';
import { ErrorsScreen, routedScreen } from './screens.js';

const TABS = [
  { path: 'runs', label: 'Runs', key: 'r' },
  { path: 'errors', label: 'Errors', key: 'e' },
  { path: 'flows', label: 'Flows', key: 'f' },
] as const;

/** The tab a screen belongs to: an issue's page is part of Errors. */
const tabOf = (section: string): string => (section === 'issues' ? 'errors' : section);

function ConnectionStatus() {
  const { connection, downSince, lastEventAt, runs } = useRunsSnapshot();
  const now = useNow();
  let active = 0;
  let waitingLimit = 0;
  let waitingApproval = 0;
  for (const r of runs.values()) {
    if ((r.status === 'running' || r.status === 'cancelling') && r.approval) waitingApproval++;
    if (r.status === 'running' || r.status === 'cancelling' || r.status === 'queued') active++;
    if (r.status === 'running' && r.waitingUntil != null) waitingLimit++;
  }
  const label = connectionLabel({ connection, downSince, lastEventAt }, Math.max(now, downSince ?? 0));
  return (
    <span className={`connection ${label.state}`} title={label.title} data-testid="connection" data-state={label.state} role="status">
      <span className="dot" aria-hidden="true" />
      {label.text}
      {label.detail !== null && <span className="muted"> · {label.detail}</span>}
      {label.state === 'live' && active > 0 && <span className="muted"> · {active} active</span>}
      {label.state === 'live' && waitingLimit > 0 && (
        <a className="muted limit-count" href="#/runs?status=waiting-limit" title="runs waiting for a usage limit to reset">
          {' '}
          · {waitingLimit} waiting for limit
        </a>
      )}
      {label.state === 'live' && waitingApproval > 0 && (
        <a
          className="muted limit-count approval-count"
          href="#/runs?status=waiting-approval"
          title="agents waiting for a person to approve a tool call"
          data-testid="approval-count"
        >
          {' '}
          · {waitingApproval} waiting for approval
        </a>
      )}
    </span>
  );
}

/** While the server cannot be reached: what is wrong and that the window keeps trying, under the top bar. */
function UnreachableBanner() {
  const { connection, downSince, lastEventAt } = useRunsSnapshot();
  const text = unreachableMessage({ connection, downSince, lastEventAt }, window.location);
  return (
    <div className="unreachable-banner" role="status" data-testid="unreachable" hidden={text === null}>
      {text}
    </div>
  );
}

/**
 * The first Tab stop: jumps past the top bar into the screen's table — onto the runs grid's one
 * Tab stop (the selected run's link, runs/grid-roving.ts), the error groups — or to the page when
 * it has none. A button-like link, not `href="#…"`: the hash is the route.
 */
function SkipLink() {
  const skip = (event: MouseEvent): void => {
    event.preventDefault();
    const table = document.querySelector<HTMLElement>('main [data-skip-target]');
    const target = table?.querySelector<HTMLElement>('[role="row"][data-run-id] [tabindex="0"]') ?? table ?? document.querySelector<HTMLElement>('main');
    if (!target) return;
    if (!target.hasAttribute('tabindex')) target.tabIndex = -1;
    target.focus();
    target.scrollIntoView({ block: 'nearest' });
  };
  return (
    <a className="skip-link" href="#/" onClick={skip} data-testid="skip-link">
      Skip to the table
    </a>
  );
}

/** `?` the sheet, `/` the search, `g` then r / e / f a screen. */
function useAppShortcuts(setSheet: (update: (open: boolean) => boolean) => void): void {
  const goPending = useRef<number | null>(null);
  const go = (key: string): void => {
    const tab = TABS.find((t) => t.key === key);
    if (tab) navigate(`#/${tab.path}`);
  };

  useShortcuts({
    '?': () => setSheet((s) => !s),
    '/': () => {
      if (focusSearchField()) return;
      focusSearchOnNextMount();
      navigate('#/runs');
    },
    g: () => {
      if (goPending.current !== null) clearTimeout(goPending.current);
      goPending.current = window.setTimeout(() => (goPending.current = null), 1200);
    },
  });

  // `g` then r / e / f: a second listener that only acts right after `g`.
  useEffect(() => {
    const onKey = (event: KeyboardEvent): void => {
      if (goPending.current === null || event.ctrlKey || event.metaKey || event.altKey) return;
      if (event.key === 'g') return;
      clearTimeout(goPending.current);
      goPending.current = null;
      if (TABS.some((t) => t.key === event.key)) {
        event.preventDefault();
        event.stopImmediatePropagation();
        go(event.key);
      }
    };
    window.addEventListener('keydown', onKey, true);
    return () => window.removeEventListener('keydown', onKey, true);
  }, []);
}

/** The window: a top bar with the three screens, the page, and the shortcut sheet. */
export function App() {
  const route = useRoute();
  const [sheet, setSheet] = useState(false);
  const [section = 'runs', id = null] = route.path;
  useScreenTitle(routeTitle(route));

  // The Errors screen's first queries start with the route, not after its chunk (charts) loaded.
  const api = useApi();
  const recoveries = useRecoveries();
  const tokenRefused = useTokenRefused();
  useEffect(() => {
    if (section === 'errors' && !ErrorsScreen.loaded()) prefetchErrors(api, route.params);
  }, [api, section, route.params]);

  // An empty hash is the Runs screen.
  useEffect(() => {
    if (route.path.length === 0) navigate('#/runs', { replace: true });
  }, [route.path.length]);

  // Move the focus to the page on navigation, for screen readers and keyboard users. Not when the
  // window opens: then the first Tab is the skip link, as on any page.
  const main = useRef<HTMLElement>(null);
  const opened = useRef(false);
  useEffect(() => {
    if (!opened.current) {
      opened.current = true;
      return;
    }
    if (document.activeElement === document.body) main.current?.focus({ preventScroll: true });
  }, [section, id]);

  useAppShortcuts(setSheet);

  const page = routedScreen(route)?.element() ?? <RunsPage />;

  if (tokenRefused) return <AccessPage reason="wrong" />;
  return (
    <div className="app">
      {/* The banner landmark holds everything above the page, so no content lies outside a landmark (axe's `region`). */}
      <header className="app-header">
        <SkipLink />
        <div className="topbar">
          <a className="brand" href="#/runs" aria-label="Hivewatch: runs">
            <span className="brand-mark" aria-hidden="true">
              ⬡
            </span>
            Hivewatch
          </a>
          <nav className="tabs" aria-label="Screens">
            {TABS.map((t) => (
              <a
                key={t.path}
                href={`#/${t.path}`}
                className={`tab${tabOf(section) === t.path ? ' active' : ''}`}
                aria-current={tabOf(section) === t.path ? 'page' : undefined}
              >
                {t.label}
              </a>
            ))}
          </nav>
          <div className="topbar-right">
            <ConnectionStatus />
            <NotificationsButton />
            <a className="topbar-settings" href="#/settings/alerts" aria-current={section === 'settings' ? 'page' : undefined}>
              Alerts
            </a>
            <button type="button" className="small ghost" onClick={() => setSheet(true)} title="keyboard shortcuts (?)">
              <kbd>?</kbd> Shortcuts
            </button>
          </div>
        </div>
        <UnreachableBanner />
        <DatabaseBanner />
      </header>
      <main ref={main} tabIndex={-1} className="main">
        <ScreenBoundary
          key={`${section}/${id ?? ''}`}
          screen={section === 'runs' && id ? 'run' : section === 'issues' ? 'issue' : section}
          recoveries={recoveries}
        >
          {page}
        </ScreenBoundary>
      </main>
      {sheet && <ShortcutSheet onClose={() => setSheet(false)} />}
    </div>
  );
}
