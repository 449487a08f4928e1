import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { getApi, hasAccess } from './api/index.js';
import { AccessPage } from './app/AccessPage.js';
import { ServicesProvider } from './app/api-context.js';
import { App } from './app/App.js';
import { preloadScreenOf } from './app/screens.js';
import { askFirstReads } from './app/first-reads.js';
import { ConfirmProvider } from './app/confirm.js';
import { APP_NAME, bindTitle, setUnseenCount } from './app/page-title.js';
import { ToastProvider } from './app/toasts.js';
import { RunsStore } from './live/runs-store.js';
import { parseHash } from './app/router.js';
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
  // The screen's first reads overlap React's first render and its chunk instead of waiting for
  // them; asked in this task, they travel in the window's first batch, before React's first
  // render, which a task later held them back by ~40 ms (app/first-reads.ts).
  const route = parseHash(window.location.hash);
  askFirstReads(api, route);
  // Coming back to the window (it was in the background, or another window had the focus) clears the title's count.
  window.addEventListener('focus', () => alerts.markSeen());
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible') alerts.markSeen();
  });

  // The alert rules' desktop channel: the feed is read when the stream says this host stored a
  // firing, and on the alert engine's own beat for other hosts' (core/service/alerts/alerts-host.ts).
  // (A constant here, not at module level: startWindow runs before the module's later lines.)
  const DESKTOP_ALERTS_EVERY_MS = 5_000;
  const desktopAlerts = new DesktopAlerts({
    api,
    notifications,
    open: (route) => (window.location.hash = route),
  });
  // A read that fails (the server away) is tried again on the next beat; the banner says why.
  const checkDesktopAlerts = (): void => void desktopAlerts.check().catch(() => undefined);
  checkDesktopAlerts();
  // A firing of this host's engine is read at once (the stream says so); the beat finds the rest.
  runs.onAlertDeliveries((change) => {
    if (change.desktop) checkDesktopAlerts();
  });
  setInterval(checkDesktopAlerts, DESKTOP_ALERTS_EVERY_MS);
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
