import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { getApi, hasAccess } from './api/index.js';
import { AccessPage } from './app/AccessPage.js';
import { ServicesProvider } from './app/api-context.js';
import { App } from './app/App.js';
import { preloadScreenOf } from './app/screens.js';
import { ConfirmProvider } from './app/confirm.js';
import { APP_NAME, bindTitle, setUnseenCount } from './app/page-title.js';
import { ToastProvider } from './app/toasts.js';
import { RunsStore } from './live/runs-store.js';
import { parseHash } from './app/router.js';
import { prefetchErrors } from './errors/errors-loads.js';
import { prefetchFirstRuns } from './runs/first-page.js';
import { AlertsProvider } from './notify/alerts-context.js';
import { browserNotifications } from './notify/browser-port.js';
import { DesktopAlerts } from './notify/desktop-alerts.js';
import { FailureAlerts } from './notify/failure-alerts.js';
import './styles/theme.css';
import './styles/layout.css';
import './styles/runs.css';
import './styles/run-detail.css';
import './styles/errors.css';
import './styles/issues.css';
import './styles/charts.css';
import './styles/flows.css';
import './styles/failures.css';
import './styles/cost.css';
import './styles/usage-limit.css';
import './styles/agent-tree.css';

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root');
if (!hasAccess()) {
  // No token for this origin (a copied link in a fresh browser): say how to get in, call nothing.
  document.title = 'Sign in · Hivewatch';
  createRoot(root).render(
    <StrictMode>
      <AccessPage reason="missing" />
    </StrictMode>,
  );
} else {
  startWindow(root);
}

function startWindow(root: HTMLElement): void {
  bindTitle((title) => (document.title = title));
  // A window opened on a screen of its own chunk asks for it before anything else takes one of
  // the browser's six connections to the server (the live stream holds one; the Errors screen's
  // ten queries, sent next, would queue it behind all their answers).
  preloadScreenOf(parseHash(window.location.hash));
  const api = getApi();

  const runs = new RunsStore(api);
  const desktop = window.hivewatch !== undefined;
  const notifications = desktop ? null : browserNotifications();
  const alerts = new FailureAlerts({
    api,
    desktop,
    notifications,
    // The title is the screen's (app/page-title.ts); the alerts' count goes in front of it below.
    baseTitle: APP_NAME,
    setTitle: () => undefined,
    openRun: (runId) => (window.location.hash = `#/runs/${encodeURIComponent(runId)}`),
  });
  alerts.subscribe(() => setUnseenCount(alerts.getSnapshot().unseen));
  runs.onLiveEvents(alerts.onLive);
  void alerts.load();
  runs.start();
  // The Runs table's first page overlaps React's first render instead of waiting for it.
  const route = parseHash(window.location.hash);
  prefetchFirstRuns(api, route.path, route.params);
  // Likewise the Errors screen's first round, here rather than in App's effect after React's first
  // render of the whole window; the screen takes these answers. Asked in this task, they travel in
  // the batch the window's own first reads make (renderer/api/read-batch.ts), sent when this task
  // ends: one connection, behind the chunk's request asked for above, and before React's first
  // render, which a task later held them back by ~40 ms.
  if (route.path[0] === 'errors') prefetchErrors(api, route.params);
  // Coming back to the window (it was in the background, or another window had the focus) clears the title's count.
  window.addEventListener('focus', () => alerts.markSeen());
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible') alerts.markSeen();
  });

  // The alert rules' desktop channel: the feed is read on the alert engine's own beat (core/service/alerts/alerts-host.ts).
  // (A constant here, not at module level: startWindow runs before the module's later lines.)
  const DESKTOP_ALERTS_EVERY_MS = 5_000;
  const desktopAlerts = new DesktopAlerts({
    api,
    notifications,
    open: (route) => (window.location.hash = route),
  });
  // A read that fails (the server away) is tried again on the next beat; the banner says why.
  void desktopAlerts.check().catch(() => undefined);
  setInterval(() => void desktopAlerts.check().catch(() => undefined), DESKTOP_ALERTS_EVERY_MS);
  // An event lost on the way (a dropped connection) is re-read for runs that went quiet.
  setInterval(() => runs.checkQuietRuns(), 10_000);
  window.addEventListener('online', () => void runs.resync());
  createRoot(root).render(
    <StrictMode>
      <ServicesProvider api={api} runs={runs}>
        <AlertsProvider alerts={alerts}>
          <ToastProvider>
            <ConfirmProvider>
              <App />
            </ConfirmProvider>
          </ToastProvider>
        </AlertsProvider>
      </ServicesProvider>
    </StrictMode>,
  );
}
