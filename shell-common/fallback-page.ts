/**
 * The built-in page shown when the real renderer (renderer-dist/, built by `npx vite build`) is
 * absent: lists runs and flows, starts, cancels, retries and resumes. Plain DOM, no inline
 * script or style (the CSP forbids them): the HTML loads /fallback.js and /fallback.css. It
 * talks to the API through `window.hivewatch` in Electron, else over HTTP with the token, which
 * it moves from `?token=` into localStorage (the same key the renderer's client uses) and
 * strips from the address bar.
 */

export const FALLBACK_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Hivewatch</title>
<link rel="stylesheet" href="/fallback.css">
<script src="/fallback.js" defer></script>
</head>
<body>
<header><h1>Hivewatch</h1><span id="status">connecting…</span></header>
<main>
<section>
<h2>Runs</h2>
<table id="runs"><thead><tr><th>Run</th><th>Flow</th><th>Status</th><th>Step</th><th>Attempts</th><th>Errors</th><th>Started</th><th></th></tr></thead><tbody></tbody></table>
<p id="no-runs" hidden>No runs yet. Start one of the flows below.</p>
</section>
<section>
<h2>Flows</h2>
<ul id="flows"></ul>
</section>
</main>
<footer>The full window is built into renderer-dist/ by <code>npx vite build</code>; this is the built-in page.</footer>
</body>
</html>
`;

export const FALLBACK_CSS = `
:root { color-scheme: light dark; font-family: system-ui, sans-serif; }
body { margin: 0; }
header { display: flex; align-items: baseline; gap: 1rem; padding: 0.75rem 1.25rem; border-bottom: 1px solid #8884; }
h1 { font-size: 1.25rem; margin: 0; }
h2 { font-size: 1rem; margin: 1.25rem 0 0.5rem; }
main { padding: 0 1.25rem 1rem; }
table { border-collapse: collapse; width: 100%; font-size: 0.875rem; }
th, td { text-align: left; padding: 0.3rem 0.5rem; border-bottom: 1px solid #8883; }
td.status-completed { color: #1a7f37; } td.status-failed, td.status-interrupted { color: #cf222e; }
td.status-running, td.status-cancelling, td.status-queued { color: #0969da; } td.status-cancelled { color: #9a6700; }
ul { list-style: none; padding: 0; margin: 0; }
li { display: flex; gap: 0.75rem; align-items: center; padding: 0.25rem 0; }
button { font: inherit; font-size: 0.8rem; }
code { font-size: 0.85em; }
footer { padding: 0.75rem 1.25rem; font-size: 0.8rem; opacity: 0.7; }
#status { font-size: 0.8rem; opacity: 0.7; }
`;

export const FALLBACK_JS = `'use strict';
(function () {
  var TOKEN_KEY = 'hivewatch.token';
  var bridge = window.hivewatch;
  var params = new URLSearchParams(location.search);
  if (params.has('token')) {
    localStorage.setItem(TOKEN_KEY, params.get('token') || '');
    params.delete('token');
    var rest = params.toString();
    history.replaceState(null, '', location.pathname + (rest ? '?' + rest : '') + location.hash);
  }
  var token = localStorage.getItem(TOKEN_KEY) || '';
  var ROUTES = {
    listRuns: function () { return ['GET', '/api/runs?limit=100']; },
    listFlows: function () { return ['GET', '/api/flows']; },
    startRun: function (input) { return ['POST', '/api/runs', input]; },
    cancelRun: function (input) { return ['POST', '/api/runs/' + encodeURIComponent(input.runId) + '/cancel', {}]; },
    retryRun: function (input) { return ['POST', '/api/runs/' + encodeURIComponent(input.runId) + '/retry', {}]; },
    resumeRun: function (input) { return ['POST', '/api/runs/' + encodeURIComponent(input.runId) + '/resume', {}]; }
  };
  function call(method, input) {
    if (bridge) {
      return bridge.invoke(method, input).then(function (reply) {
        if (!reply.ok) throw new Error(reply.error.message);
        return reply.value;
      });
    }
    var route = ROUTES[method](input);
    // No token (never opened the printed URL): no header, the server answers "missing token".
    var init = { method: route[0], headers: token ? { Authorization: 'Bearer ' + token } : {} };
    if (route[2] !== undefined) {
      init.headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify(route[2]);
    }
    return fetch(route[1], init).then(function (response) {
      return response.json().then(function (body) {
        if (!response.ok) throw new Error((body.error && body.error.message) || response.statusText);
        return body;
      });
    });
  }
  function el(tag, text, className) {
    var node = document.createElement(tag);
    if (text !== undefined) node.textContent = String(text);
    if (className) node.className = className;
    return node;
  }
  function button(label, onClick) {
    var b = el('button', label);
    b.type = 'button';
    b.addEventListener('click', function () {
      b.disabled = true;
      onClick().then(refresh, function (error) { setStatus(error.message); }).then(function () { b.disabled = false; });
    });
    return b;
  }
  function setStatus(text) { document.getElementById('status').textContent = text; }
  var ACTIVE = ['queued', 'running', 'cancelling'];
  function renderRuns(runs) {
    var body = document.querySelector('#runs tbody');
    body.replaceChildren();
    document.getElementById('no-runs').hidden = runs.length > 0;
    runs.forEach(function (run) {
      var row = el('tr');
      row.append(el('td', run.id), el('td', run.flowName), el('td', run.status + (run.retrying ? ' (retrying)' : ''), 'status-' + run.status),
        el('td', run.step + ' / ' + run.maxSteps), el('td', run.attempts), el('td', run.errorCount),
        el('td', new Date(run.startedAt).toLocaleString()));
      var actions = el('td');
      if (ACTIVE.indexOf(run.status) >= 0) {
        actions.append(button('Cancel', function () { return call('cancelRun', { runId: run.id }); }));
      } else {
        actions.append(button('Retry', function () { return call('retryRun', { runId: run.id }); }));
        if (run.status !== 'completed') actions.append(button('Resume', function () { return call('resumeRun', { runId: run.id }); }));
      }
      row.append(actions);
      body.append(row);
    });
  }
  function renderFlows(flows) {
    var list = document.getElementById('flows');
    list.replaceChildren();
    flows.forEach(function (flow) {
      var item = el('li');
      var start = button('Start', function () { return call('startRun', { flow: flow.id, virtualClock: true }); });
      start.disabled = !flow.ok;
      item.append(start, el('span', flow.name), el('code', flow.id));
      if (!flow.ok) item.append(el('span', flow.diagnostics.length + ' problem(s)'));
      list.append(item);
    });
  }
  function refresh() {
    return call('listRuns', {}).then(function (page) {
      renderRuns(page.items);
      setStatus('updated ' + new Date().toLocaleTimeString());
    }, function (error) { setStatus(error.message); });
  }
  call('listFlows', undefined).then(renderFlows, function (error) { setStatus(error.message); });
  refresh();
  setInterval(refresh, 2000);
})();
`;
