import { leftoverReaper } from '../../runtimes/process/leftover-groups.js';
import { openStore, type HivewatchStore } from '../../store/index.js';

type HostStoreOptions = Omit<Parameters<typeof openStore>[0], 'endLeftovers'>;

/**
 * Opens the store for a process that runs flows (the server, the window, the CLI). Its start-up
 * recovery, and every later one (the host watch, a command that reaches a run whose host is gone),
 * ends the agent process groups a dead host on this machine left, before it journals
 * `runInterrupted`: a resume never starts a second agent beside a leftover one. Process control
 * is the runtimes'; the store only finds the groups in the journal.
 */
export function openHostStore(options: HostStoreOptions): Promise<HivewatchStore> {
  return openStore({ ...options, endLeftovers: leftoverReaper() });
}
