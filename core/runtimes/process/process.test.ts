import { chmodSync, existsSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runProcess } from './process.js';
import { truncationMarker } from './tail-buffer.js';
import { tempDirs } from '../../testing/temp-dirs.js';

const tempDir = tempDirs();

const node = process.execPath;
const MiB = 1024 * 1024;

/** Dead means gone, or a zombie waiting to be reaped: either way it runs no more. */
function isDead(pid: number): boolean {
  const stat = `/proc/${pid}/stat`;
  if (!existsSync(stat)) return true;
  try {
    return readFileSync(stat, 'utf8').split(') ')[1]?.startsWith('Z') ?? true;
  } catch {
    return true;
  }
}

describe('runProcess', () => {
  it('captures stdout, stderr and the exit code of a child run from argv', async () => {
    const r = await runProcess({ argv: [node, '-e', "console.log('out'); console.error('err'); process.exitCode = 3"], runtimeName: 't' });
    expect(r).toMatchObject({ exitCode: 3, signal: null, timedOut: false, cancelled: false, stdout: 'out\n', stderr: 'err\n', runtimeName: 't' });
    expect(r.spawnError).toBeUndefined();
  });

  it('passes argv without a shell and merges env over process.env in the given cwd', async () => {
    const dir = realpathSync(tempDir('hw-proc-'));
    const r = await runProcess({
      argv: [node, '-e', 'console.log(JSON.stringify([process.argv[1], process.env.HW_X, typeof process.env.PATH, process.cwd()]))', '$(echo no) ; *'],
      runtimeName: 't',
      env: { HW_X: 'x-value' },
      cwd: dir,
    });
    expect(JSON.parse(r.stdout)).toEqual(['$(echo no) ; *', 'x-value', 'string', dir]);
  });

  it('reports a missing command as a spawn error naming it, without throwing', async () => {
    const r = await runProcess({ argv: ['hivewatch-no-such-cli', '--help'], runtimeName: 't' });
    expect(r.spawnError).toEqual({ code: 'ENOENT', message: 'command not found: "hivewatch-no-such-cli" (ENOENT)' });
    expect(r).toMatchObject({ exitCode: null, signal: null, cancelled: false });
  });

  it('reports a file that is not executable as EACCES', async () => {
    const dir = tempDir('hw-proc-');
    const file = join(dir, 'not-exec.sh');
    writeFileSync(file, '#!/bin/sh\necho hi\n');
    chmodSync(file, 0o644);
    const r = await runProcess({ argv: [file], runtimeName: 't' });
    expect(r.spawnError).toEqual({ code: 'EACCES', message: `permission denied: "${file}" is not executable (EACCES)` });
  });

  it('blames a missing working directory, not the command', async () => {
    const r = await runProcess({ argv: [node, '-v'], runtimeName: 't', cwd: '/no/such/dir/hivewatch' });
    expect(r.spawnError).toEqual({ code: 'ENOENT', message: 'working directory not found: "/no/such/dir/hivewatch" (ENOENT)' });
  });

  it('rejects an empty command line as a spawn error', async () => {
    const r = await runProcess({ argv: [], runtimeName: 't' });
    expect(r.spawnError).toEqual({ code: 'EINVAL', message: 'empty command line' });
  });

  it('stops a child at its timeout with SIGTERM', async () => {
    const r = await runProcess({ argv: [node, '-e', 'setInterval(() => {}, 1000)'], runtimeName: 't', timeoutMs: 200 });
    expect(r).toMatchObject({ timedOut: true, cancelled: false, signal: 'SIGTERM', exitCode: null, timeoutMs: 200 });
  });

  it('does not turn a timeout beyond the timer range into an immediate one', async () => {
    const r = await runProcess({ argv: [node, '-e', "setTimeout(() => console.log('done'), 50)"], runtimeName: 't', timeoutMs: 30 * 24 * 3_600_000 });
    expect(r).toMatchObject({ timedOut: false, exitCode: 0, stdout: 'done\n' });
  });

  it('kills a child that ignores SIGTERM with SIGKILL after the grace period (timeout)', async () => {
    // `trap '' TERM` is in place before sh does anything else, and the ignored disposition is
    // inherited by `sleep`: the whole group survives SIGTERM.
    const r = await runProcess({ argv: ['/bin/sh', '-c', "trap '' TERM; sleep 30"], runtimeName: 't', timeoutMs: 200, killGraceMs: 300 });
    expect(r).toMatchObject({ timedOut: true, signal: 'SIGKILL' });
  });

  it('kills a node child that ignores SIGTERM with SIGKILL after the grace period (abort)', async () => {
    // Abort only once the child says its handler is installed, so the test cannot race its start.
    const controller = new AbortController();
    const r = await runProcess({
      argv: [node, '-e', "process.on('SIGTERM', () => {}); console.log('ready'); setInterval(() => {}, 1000)"],
      runtimeName: 't',
      killGraceMs: 300,
      signal: controller.signal,
      onOutput: (stream, chunk) => {
        if (stream === 'stdout' && chunk.toString().includes('ready')) controller.abort();
      },
    });
    expect(r).toMatchObject({ cancelled: true, timedOut: false, signal: 'SIGKILL', stdout: 'ready\n' });
  });

  it('killNow (a forced cancel) ends a child that ignores SIGTERM at once, without waiting out the grace', async () => {
    // The grace is ten minutes: only killNow can end this child before the test's own timeout.
    const stop = new AbortController();
    const force = new AbortController();
    const r = await runProcess({
      argv: ['/bin/sh', '-c', "trap '' TERM INT; echo ready; sleep 25"],
      runtimeName: 't',
      killGraceMs: 600_000,
      signal: stop.signal,
      killNow: force.signal,
      onOutput: (stream, chunk) => {
        if (stream !== 'stdout' || !chunk.toString().includes('ready')) return;
        stop.abort();
        force.abort();
      },
    });
    expect(r).toMatchObject({ cancelled: true, timedOut: false, signal: 'SIGKILL', stdout: 'ready\n' });
    expect(isDead(r.pid as number)).toBe(true);
  });

  it('kills the whole process group, grandchildren included', async () => {
    let grandchild = 0;
    const controller = new AbortController();
    const r = await runProcess({
      argv: ['/bin/sh', '-c', 'sleep 30 & echo $!; wait'],
      runtimeName: 't',
      signal: controller.signal,
      onOutput: (_stream, chunk) => {
        grandchild = Number(chunk.toString().trim());
        controller.abort();
      },
    });
    expect(r.cancelled).toBe(true);
    expect(grandchild).toBeGreaterThan(0);
    expect(isDead(grandchild)).toBe(true);
  });

  it('keeps only the last 1 MiB of a child flooding stdout (50 MiB), with a marker', async () => {
    const script = "const b = Buffer.alloc(1024 * 1024, 97); for (let i = 0; i < 50; i++) process.stdout.write(b); process.stdout.write('END')";
    const r = await runProcess({ argv: [node, '-e', script], runtimeName: 't' });
    const total = 50 * MiB + 3;
    expect(r.exitCode).toBe(0);
    expect(r.stdoutDroppedBytes).toBe(total - MiB);
    expect(r.stdout.startsWith(truncationMarker(total - MiB))).toBe(true);
    expect(r.stdout.length).toBe(truncationMarker(total - MiB).length + MiB);
    expect(r.stdout.endsWith('aaaEND')).toBe(true);
  });

  it('honours a smaller capture limit on stderr too', async () => {
    const r = await runProcess({ argv: [node, '-e', "process.stderr.write('x'.repeat(5000) + 'TAIL')"], runtimeName: 't', maxCaptureBytes: 10 });
    expect(r.stderr).toBe(`${truncationMarker(4994)}xxxxxxTAIL`);
  });

  it('does not start a child when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const r = await runProcess({ argv: [node, '-v'], runtimeName: 't', signal: controller.signal });
    expect(r).toMatchObject({ cancelled: true, pid: null, exitCode: null });
  });

  it('marks an abort during the run as cancelled', async () => {
    const controller = new AbortController();
    const pending = runProcess({ argv: [node, '-e', 'setInterval(() => {}, 1000)'], runtimeName: 't', signal: controller.signal });
    controller.abort();
    const r = await pending;
    expect(r).toMatchObject({ cancelled: true, timedOut: false });
    expect(r.signal).not.toBeNull();
  });

  it('ends a background grandchild holding the pipes when the child exits, and completes', async () => {
    const r = await runProcess({ argv: ['/bin/sh', '-c', 'sleep 30 & echo $!'], runtimeName: 't' });
    expect(r).toMatchObject({ exitCode: 0, outputHeldOpen: false, groupSurvivors: [] });
    expect(isDead(Number(r.stdout.trim()))).toBe(true);
  });

  it('ends a background grandchild of a successful attempt that does not hold the pipes', async () => {
    const r = await runProcess({ argv: ['/bin/sh', '-c', 'sleep 300 >/dev/null 2>&1 & echo $!'], runtimeName: 't' });
    expect(r.exitCode).toBe(0);
    const grandchild = Number(r.stdout.trim());
    expect(grandchild).toBeGreaterThan(0);
    expect(isDead(grandchild)).toBe(true);
  });

  it('ends a grandchild that ignores SIGTERM with SIGKILL after the child exits', async () => {
    const r = await runProcess({ argv: ['/bin/sh', '-c', "(trap '' TERM; sleep 30) >/dev/null 2>&1 & echo $!"], runtimeName: 't', killGraceMs: 200 });
    expect(r.exitCode).toBe(0);
    expect(isDead(Number(r.stdout.trim()))).toBe(true);
  });

  it('reads everything a child writes before it exits, however it exits', async () => {
    const script =
      "const b = Buffer.alloc(256 * 1024, 98); for (let i = 0; i < 8; i++) process.stdout.write(b); process.stdout.write('LAST'); process.exitCode = 4";
    const r = await runProcess({ argv: [node, '-e', script], runtimeName: 't', maxCaptureBytes: 4 * MiB });
    expect(r).toMatchObject({ exitCode: 4, stdoutDroppedBytes: 0 });
    expect(r.stdout.length).toBe(2 * MiB + 4);
    expect(r.stdout.endsWith('bLAST')).toBe(true);
  });

  it('reports the pid and its /proc start time as soon as the child is spawned', async () => {
    const seen: { pid: number; startTime: string | null }[] = [];
    const r = await runProcess({
      argv: ['/bin/sh', '-c', 'cut -d" " -f22 /proc/$$/stat'],
      runtimeName: 't',
      onStarted: (started) => seen.push(started),
    });
    expect(seen).toEqual([{ pid: r.pid, startTime: r.stdout.trim() }]);
  });

  it('says so when a process outside the group (setsid) keeps the output open, and stops reading', async () => {
    // The child waits until the grandchild has its own session, so the group signal cannot reach it first.
    const ready = join(tempDir('hw-proc-'), 'ready');
    const script = `setsid sh -c 'echo $$ > ${ready}; exec sleep 30' & until [ -s ${ready} ]; do :; done; cat ${ready}`;
    const r = await runProcess({ argv: ['/bin/sh', '-c', script], runtimeName: 't', killGraceMs: 100 });
    const escaped = Number(r.stdout.trim());
    try {
      expect(r).toMatchObject({ exitCode: 0, outputHeldOpen: true });
      expect(isDead(escaped)).toBe(false);
    } finally {
      process.kill(escaped, 'SIGKILL');
    }
  });
});
