import { checkFlow, readFlowFile } from '../../flow/check/check.js';
import type { CheckResult } from '../../flow/plan/plan.js';
import { FlowKeys, flowFoldersForDatabase } from './keys.js';

/**
 * A flow FILE run from the command line: the key it is recorded under (its `examples/` or
 * `user/` id when it lies in the database's flow folders, else its path; see keys.ts) and
 * its check under that key, so diagnostics and journal agree.
 */
export async function checkFlowFileAs(file: string, databasePath: string): Promise<{ key: string; checked: CheckResult; source: string | null }> {
  const key = new FlowKeys(flowFoldersForDatabase(databasePath)).keyOf(file);
  // A file that cannot be read (or is not text) is reported under its path, where the operator looks for it.
  const read = await readFlowFile(file);
  return read.ok ? { key, checked: checkFlow(read.source, key), source: read.source } : { key, checked: read.result, source: null };
}
