// Helpers the fault trials share (bin/faults.js, bin/faults-pg.js).
import { request } from 'node:http';
import { createInterface } from 'node:readline';

export function killQuietly(pid, signal = 'SIGKILL') {
  try {
    process.kill(pid, signal);
  } catch {
    // Already gone.
  }
}

export function check(condition, message) {
  if (!condition) throw new Error(message);
}

export function httpJson(origin, token, method, path, body) {
  return new Promise((resolve, reject) => {
    const req = request(`${origin}${path}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => (res.statusCode >= 300 ? reject(new Error(`${method} ${path}: ${res.statusCode} ${text}`)) : resolve(JSON.parse(text))));
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

/** Collects the events of `/api/stream` (server-sent events: `event: hw` then `data: {...}`). */
export function openStream(origin, token, printed) {
  const req = request(`${origin}/api/stream`, { headers: { authorization: `Bearer ${token}` } }, (res) => {
    let kind = '';
    // The server is killed under the stream: a reset connection is the expected end.
    res.on('error', () => undefined);
    const lines = createInterface({ input: res });
    lines.on('error', () => undefined);
    lines.on('line', (line) => {
      if (line.startsWith('event: ')) kind = line.slice(7);
      else if (line.startsWith('data: ') && kind === 'hw') printed.push(JSON.parse(line.slice(6)));
    });
  });
  req.on('error', () => undefined);
  req.end();
  return req;
}
