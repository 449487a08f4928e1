import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let collect: (() => void) | undefined;

/**
 * A full collection, so a memory figure taken after it is what the process keeps, not garbage
 * the collector has not reached yet. Twice, because objects freed by the first pass's finalizers
 * (native handles, weak references) are collected only by the next one. The flag is switched on at
 * run time so no test or bench has to start Node with --expose-gc.
 */
export function fullGc(): void {
  if (collect === undefined) {
    setFlagsFromString('--expose-gc');
    collect = runInNewContext('gc') as () => void;
  }
  collect();
  collect();
}

/** What the process still holds after a full collection: the JS heap plus Buffers outside it. */
export function retainedBytes(): number {
  fullGc();
  const { heapUsed, external } = process.memoryUsage();
  return heapUsed + external;
}
