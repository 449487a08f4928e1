import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A flow for the database-outage tests: three sessions of a real command
 * agent, each of which works until the test lets it finish (`go(n)`), so a test can stop the
 * database while a given session is at work and know what the host still has to journal.
 */

const OUTAGE_SESSIONS = 3;

export interface OutageFlow {
  /** The flow file (also under `flowsDir` as `outage.prose`, for a service's user flows). */
  file: string;
  flowsDir: string;
  /** Lets session `n` (1-based) finish. */
  go(n: number): void;
  /** Whether session `n`'s agent has answered (it writes this just before it exits). */
  answered(n: number): boolean;
}

export function outageFlow(dir: string): OutageFlow {
  const flowsDir = join(dir, 'flows');
  mkdirSync(flowsDir, { recursive: true });
  const agent = join(dir, 'agent.sh');
  writeFileSync(agent, `n="$HIVEWATCH_PROMPT"\nwhile [ ! -e "${dir}/go-$n" ]; do sleep 0.02; done\necho "session $n done"\ntouch "${dir}/answered-$n"\n`);
  const sessions = Array.from({ length: OUTAGE_SESSIONS }, (_, i) => `session "${i + 1}"\n  agent: waiter\n`).join('');
  const file = join(flowsDir, 'outage.prose');
  writeFileSync(file, `agent waiter:\n  runtime: "command"\n  command: "/bin/sh ${agent}"\n\n${sessions}`);
  return {
    file,
    flowsDir,
    go: (n) => writeFileSync(join(dir, `go-${n}`), ''),
    answered: (n) => existsSync(join(dir, `answered-${n}`)),
  };
}
