import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { HivewatchEvent } from '../base/events.js';

/** The real `hivewatch` binary (dist/, built by the suite's global setup) as a host in tests. */

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'hivewatch.js');

export interface CliHost {
  /** The --json lines printed so far (each one journaled: the CLI prints an event once committed). */
  printed: HivewatchEvent[];
  stderr(): string;
  stdout(): string;
  /** Resolves with the exit code (a signal counts as -1). */
  exited: Promise<number>;
  kill(): void;
}

/** `hivewatch <args>`, its output collected; `json` parses stdout's lines as events. */
export function cliHost(args: readonly string[], env: Record<string, string>, json = args.includes('--json')): CliHost {
  const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const printed: HivewatchEvent[] = [];
  let out = '';
  let err = '';
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  createInterface({ input: child.stdout }).on('line', (line) => {
    out += `${line}\n`;
    if (json) printed.push(JSON.parse(line) as HivewatchEvent);
  });
  const exited = new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? -1)));
  return { printed, stderr: () => err, stdout: () => out, exited, kill: () => child.kill('SIGKILL') };
}
