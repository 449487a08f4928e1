import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A throwaway PostgreSQL cluster for tests and benches: `initdb` into a temp directory, `pg_ctl`
 * start on a loopback port with its socket in that directory, removed again on stop (and on
 * process exit, so a failing suite leaves no server behind).
 *
 * The server refuses to run as root, so when this process is root the cluster belongs to the
 * `postgres` user and its tools run through `runuser`. Authentication is `trust` on loopback
 * only: the cluster lives as long as one test run and listens nowhere else.
 */

export interface PostgresBinaries {
  dir: string;
  version: string;
}

export interface PostgresCluster {
  readonly dataDir: string;
  readonly port: number;
  readonly user: string;
  /** `postgres://user@127.0.0.1:port/database` (no password: trust on loopback). */
  url(database?: string): string;
  /** Stops the server at once (as a crash would), keeping its data: the server going away mid-run. */
  halt(): void;
  /** Starts a halted server again on the same port and data. */
  restart(): void;
  /** `pg_ctl restart -m immediate`: the server is killed as a crash would, and starts again with crash recovery. */
  restartImmediately(): void;
  stop(): void;
}

const SUPERUSER = 'hivewatch';

function versionDirs(root: string): string[] {
  if (!existsSync(root)) return [];
  return readdirSync(root)
    .filter((name) => /^\d+$/.test(name) && existsSync(join(root, name, 'bin', 'pg_ctl')))
    .sort((a, b) => Number(b) - Number(a));
}

/** The newest PostgreSQL server binaries Debian installed, or null (`reason` says what is missing). */
export function findPostgres(root = '/usr/lib/postgresql'): { binaries: PostgresBinaries | null; reason: string } {
  const [newest] = versionDirs(root);
  if (newest === undefined) {
    return { binaries: null, reason: `no PostgreSQL server in ${root}/*/bin (install it: apt-get install -y postgresql)` };
  }
  return { binaries: { dir: join(root, newest, 'bin'), version: newest }, reason: '' };
}

const isRoot = (): boolean => process.getuid?.() === 0;

/** Runs a server tool as the cluster's owner: `postgres` when we are root, else ourselves. */
function toolCommand(bin: string, args: string[]): [string, string[]] {
  return isRoot() ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args];
}

/**
 * The environment of a server tool: the caller's, without libfaketime. Under the suite's clock
 * checks (docs/testing.md) every process preloads libfaketime, which keeps a semaphore in
 * /dev/shm named by pid. The tools run as `postgres`; a semaphore left by a killed root process
 * whose pid a tool later reuses cannot be opened by it, and libfaketime ends the tool
 * ("sem_open failed … Permission denied"). The server's own clock never reaches a stored time
 * (the stores write the times their injected clock gives), so the tools keep the real one.
 */
export function toolEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const kept: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (name.startsWith('FAKETIME')) continue;
    if (name === 'LD_PRELOAD') {
      const others = (value ?? '').split(/[\s:]+/).filter((lib) => lib !== '' && !lib.includes('faketime'));
      if (others.length > 0) kept[name] = others.join(':');
      continue;
    }
    kept[name] = value;
  }
  return kept;
}

function runTool(bin: string, args: string[]): void {
  const [command, fullArgs] = toolCommand(bin, args);
  const result = spawnSync(command, fullArgs, { encoding: 'utf8', env: toolEnv() });
  if (result.status !== 0) {
    const output = `${result.stdout ?? ''}${result.stderr ?? ''}`.trim();
    throw new Error(`${bin} ${args[0] ?? ''} failed (exit ${String(result.status)}): ${output || String(result.error)}`);
  }
}

async function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

const running = new Set<PostgresCluster>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const cluster of running) {
      try {
        cluster.stop();
      } catch {
        // The process is exiting; a cluster that cannot be stopped dies with its temp directory.
      }
    }
  });
}

export interface ClusterOptions {
  /**
   * A data directory kept between runs (a bench's cached database): created and initialised when
   * it holds no cluster yet, reused as it is otherwise; stop() shuts the server down cleanly and
   * leaves the directory. Its parent must be reachable by the cluster's owner (`postgres` when
   * this process is root). Without it the cluster lives in a fresh temp directory, removed on stop.
   */
  keepDataDir?: string;
  /**
   * Commit synchronously (synchronous_commit on): a commit the client saw survives an immediate
   * stop or a server crash. The default cluster commits asynchronously (faster tests), which an
   * immediate stop may undo; the fault tests that kill the server need this.
   */
  durableCommits?: boolean;
}

export async function startPostgresCluster(binaries: PostgresBinaries, options: ClusterOptions = {}): Promise<PostgresCluster> {
  const kept = options.keepDataDir;
  if (kept !== undefined) mkdirSync(kept, { recursive: true });
  const dataDir = kept ?? mkdtempSync(join(tmpdir(), 'hivewatch-pg-'));
  if (isRoot()) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(dataDir, uid, gid);
  }
  chmodSync(dataDir, 0o700);
  const port = await freeLoopbackPort();
  const tool = (name: string): string => join(binaries.dir, name);
  let started = false;
  const stop = (): void => {
    running.delete(cluster);
    if (started) {
      started = false;
      // `immediate`: a throwaway cluster needs no clean shutdown checkpoint; a kept one does.
      const [command, args] = toolCommand(tool('pg_ctl'), ['stop', '-D', dataDir, '-m', kept === undefined ? 'immediate' : 'fast', '-w']);
      spawnSync(command, args, { env: toolEnv() });
    }
    if (kept === undefined) rmSync(dataDir, { recursive: true, force: true });
  };
  const serverOptions = [
    `-p ${port}`,
    '-c listen_addresses=127.0.0.1',
    `-c unix_socket_directories=${dataDir}`,
    // Durability is not what these tests measure (the conformance suite checks commit
    // semantics, not the disk): a throwaway cluster skips fsync to keep test runs short.
    '-c fsync=off',
    `-c synchronous_commit=${options.durableCommits ? 'on' : 'off'}`,
    '-c full_page_writes=off',
  ].join(' ');
  const start = (): void => {
    runTool(tool('pg_ctl'), ['start', '-D', dataDir, '-w', '-t', '60', '-l', join(dataDir, 'server.log'), '-o', serverOptions]);
    started = true;
  };
  const cluster: PostgresCluster = {
    dataDir,
    port,
    user: SUPERUSER,
    url: (database = 'postgres') => `postgres://${SUPERUSER}@127.0.0.1:${port}/${database}`,
    halt: () => {
      // `fast`: every session is cut off at once, and what was committed is on disk (this cluster
      // commits asynchronously, so an immediate stop could drop the last commits).
      const [command, args] = toolCommand(tool('pg_ctl'), ['stop', '-D', dataDir, '-m', 'fast', '-w']);
      spawnSync(command, args, { env: toolEnv() });
      started = false;
    },
    restart: start,
    restartImmediately: () => {
      runTool(tool('pg_ctl'), ['restart', '-D', dataDir, '-m', 'immediate', '-w', '-t', '60', '-l', join(dataDir, 'server.log'), '-o', serverOptions]);
      started = true;
    },
    stop,
  };
  try {
    if (!existsSync(join(dataDir, 'PG_VERSION')))
      runTool(tool('initdb'), ['-D', dataDir, '-U', SUPERUSER, '--auth=trust', '--encoding=UTF8', '--no-sync', '--locale=C']);
    if (kept !== undefined && existsSync(join(dataDir, 'postmaster.pid'))) {
      // A kept cluster whose last user was killed may still be running: stop it before reuse.
      const [command, args] = toolCommand(tool('pg_ctl'), ['stop', '-D', dataDir, '-m', 'fast', '-w']);
      spawnSync(command, args, { env: toolEnv() });
    }
    start();
    running.add(cluster);
    installExitHook();
    return cluster;
  } catch (error) {
    stop();
    throw error;
  }
}
