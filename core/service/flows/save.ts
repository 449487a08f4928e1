import { randomBytes } from 'node:crypto';
import { link, mkdir, rename, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { invalidFlowMessage } from '../runs/invalid-run.js';
import { checkFlow } from '../../flow/check/check.js';
import { ApiError } from '../../common/api-errors.js';
import { FLOW_FOLDERS } from './keys.js';

/**
 * Saving a draft from the Flows screen into the operator's folder as `user/<name>.prose`. Only a
 * draft that checks is written (a saved flow is one that can be started); the name is one file
 * name, never a path; an existing file is replaced only when the caller says `overwrite` (the
 * window asks first). The file appears whole or not at all: written beside it under a temporary
 * name, then linked (no overwrite) or renamed (overwrite) into place.
 */

export interface SaveFlowArgs {
  name: string;
  source: string;
  overwrite?: boolean | undefined;
}

/** `name` as typed, with or without `.prose`: the key the flow is saved under. */
function flowKeyOfName(name: string): string {
  return `${FLOW_FOLDERS.user}/${name.endsWith('.prose') ? name : `${name}.prose`}`;
}

function errnoOf(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | null)?.code;
}

/** Writes the draft; resolves with its flow key. */
export async function saveUserFlow(userFlowsDir: string | null, args: SaveFlowArgs): Promise<string> {
  const key = flowKeyOfName(args.name);
  if (userFlowsDir === null) throw new ApiError('no_flows_folder', `cannot save ${key}: this database has no flows folder (an in-memory database)`);
  const checked = checkFlow(args.source, key);
  if (!checked.ok) {
    throw new ApiError('invalid_flow', `${invalidFlowMessage(key, checked)}; only a flow that checks is saved`);
  }
  const file = key.slice(FLOW_FOLDERS.user.length + 1);
  const target = join(userFlowsDir, file);
  await mkdir(userFlowsDir, { recursive: true });
  const temp = join(userFlowsDir, `.${file}.${randomBytes(6).toString('hex')}.tmp`);
  await writeFile(temp, args.source, { encoding: 'utf8', flag: 'wx' });
  try {
    if (args.overwrite === true) {
      await rename(temp, target);
      return key;
    }
    // link() refuses an existing name: no window between "is it there?" and "write it".
    await link(temp, target);
  } catch (error) {
    if (errnoOf(error) === 'EEXIST') {
      throw new ApiError('flow_exists', `${key} already exists; save with overwrite to replace it`);
    }
    throw error;
  } finally {
    await unlink(temp).catch(() => undefined);
  }
  return key;
}
