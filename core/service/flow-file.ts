import { readFile } from 'node:fs/promises';
import { checkFlow, checkFlowFile } from '../flow/check.js';
import type { CheckResult } from '../flow/plan.js';
import { FlowKeys, flowFoldersForDatabase } from './flow-keys.js';

/**
 * A flow FILE run from the command line: the key it is recorded under (its `examples/` or
 * `user/` id when it lies in the database's flow folders, else its path; see flow-keys.ts) and
 * its check under that key, so diagnostics and journal agree.
 */
export async function checkFlowFileAs(file: string, databasePath: string): Promise<{ key: string; checked: CheckResult }> {
  const key = new FlowKeys(flowFoldersForDatabase(databasePath)).keyOf(file);
  if (key === file) return { key, checked: await checkFlowFile(file) };
  let source: string;
  try {
    source = await readFile(file, 'utf8');
  } catch {
    return { key, checked: await checkFlowFile(file) };
  }
  return { key, checked: checkFlow(source, key) };
}
