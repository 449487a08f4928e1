import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLES_DIR } from '../core/service/conformance.suite.js';
import { createHivewatchService, type HivewatchService } from '../core/service/service.js';
import { openStore, type HivewatchStore } from '../core/store/index.js';
import { startHttpShell, type HttpShell } from './http.js';

/** The flows folder as a boundary, over HTTP: `flows/evil.prose -> /etc/passwd` leaks nothing and starts nothing. */

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

describe('a FIFO and a file over 2 MiB in the operator flows folder', () => {
  let dir: string;
  let store: HivewatchStore;
  let service: HivewatchService;
  let shell: HttpShell;
  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${shell.origin}${path}`, { ...init, headers: { authorization: `Bearer ${shell.token}`, 'content-type': 'application/json' } });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hw-folder-fifo-'));
    expect(spawnSync('mkfifo', [join(dir, 'pipe.prose')]).status).toBe(0);
    symlinkSync(join(dir, 'pipe.prose'), join(dir, 'linked.prose'));
    writeFileSync(join(dir, 'big.prose'), `# ${'x'.repeat(2 * 1024 * 1024)}\n`);
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

  it('is never read (a read would wait for a writer forever): neither it nor a link to it is listed, and starting either is a 400 that says why', async () => {
    const listed = (await (await api('/api/flows')).json()) as { id: string; ok: boolean; diagnostics: { message: string }[] }[];
    // The large file is listed with its one problem, unread past the bound.
    const users = listed.filter((f) => f.id.startsWith('user/')).map((f) => [f.id, f.ok, f.diagnostics.map((d) => d.message)]);
    expect(users).toEqual([['user/big.prose', false, ['cannot read the flow: it is larger than 2 MiB, the most this file may have']]]);
    for (const flow of ['user/pipe.prose', 'user/linked.prose']) {
      const started = await api('/api/runs', { method: 'POST', body: JSON.stringify({ flow }) });
      expect(started.status).toBe(400);
      expect(await started.json()).toEqual({
        error: { code: 'flow_not_a_file', message: `flow ${flow} is a FIFO (named pipe), not a regular file; only regular files can be listed or run` },
      });
    }
    expect((await store.listRuns({ limit: 10 })).runs).toEqual([]);
  });
});
