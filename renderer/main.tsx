import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { getApi } from './api/index.js';
import { ServicesProvider } from './app/api-context.js';
import { App } from './app/App.js';
import { ConfirmProvider } from './app/confirm.js';
import { ToastProvider } from './app/toasts.js';
import { RunsStore } from './live/runs-store.js';
import './styles/theme.css';
import './styles/layout.css';
import './styles/runs.css';
import './styles/run-detail.css';
import './styles/errors.css';
import './styles/flows.css';

const api = getApi();
const runs = new RunsStore(api);
runs.start();

// An event lost on the way (a dropped connection) is re-read for runs that went quiet.
setInterval(() => runs.checkQuietRuns(), 10_000);
window.addEventListener('online', () => void runs.resync());

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root');
createRoot(root).render(
  <StrictMode>
    <ServicesProvider api={api} runs={runs}>
      <ToastProvider>
        <ConfirmProvider>
          <App />
        </ConfirmProvider>
      </ToastProvider>
    </ServicesProvider>
  </StrictMode>,
);
