import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLES_DIR } from '../core/service/conformance.suite.js';
import { createHivewatchService, type HivewatchService } from '../core/service/service.js';
import { openStore, type HivewatchStore } from '../core/store/index.js';
import { startHttpShell, type HttpShell } from './http.js';

/** Issue #9 part 6 over HTTP: `flows/evil.prose -> /etc/passwd` leaks nothing and starts nothing. */

describe('the operator flows folder over HTTP', () => {
  let dir: string;
  let store: HivewatchStore;
  let service: HivewatchService;
  let shell: HttpShell;
  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${shell.origin}${path}`, { ...init, headers: { authorization: `Bearer ${shell.token}`, 'content-type': 'application/json' } });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hw-folder-'));
    symlinkSync('/etc/passwd', join(dir, 'evil.prose'));
    writeFileSync(join(dir, 'own.prose'), 'agent worker:\n  runtime: "fake"\nsession: worker\n  prompt: "hi"\n');
    store = await openStore({ path: ':memory:' });
    service = await createHivewatchService({ store, examplesDir: EXAMPLES_DIR, userFlowsDir: dir, clock: 'virtual' });
    shell = await startHttpShell({ service, log: () => undefined });
  });

  afterAll(async () => {
    await shell.close();
    await service.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a link to /etc/passwd is not listed, and starting it is a 400 that shows none of its content', async () => {
    const firstLine = readFileSync('/etc/passwd', 'utf8').split('\n')[0] as string;
    const listed = (await (await api('/api/flows')).json()) as { id: string }[];
    expect(listed.map((f) => f.id).filter((id) => id.startsWith('user/'))).toEqual(['user/own.prose']);

    const started = await api('/api/runs', { method: 'POST', body: JSON.stringify({ flow: 'user/evil.prose' }) });
    const text = await started.text();
    expect(started.status).toBe(400);
    expect(JSON.parse(text)).toEqual({
      error: {
        code: 'flow_outside_folder',
        message: `flow user/evil.prose is a link to a file outside ${dir}; only files inside the flows folder can be listed or run`,
      },
    });
    expect(text).not.toContain(firstLine.split(':')[0] + ':');
    expect((await store.listRuns({ limit: 10 })).runs).toEqual([]);
  });
});
