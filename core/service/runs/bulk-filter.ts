import type { RunFilterInput } from '../api.js';
import { ApiError } from '../../common/api-errors.js';
import { FlowRefError, resolveFlowRef, type FlowRefScope } from '../flows/ref.js';

/**
 * A bulk action's filter, checked on the server whoever sent it (the window, the command line, a
 * script): it never widens. The schema refuses empty values; here a filter that narrows the runs
 * by nothing but their status is refused unless the caller says `all`, and `flow` is taken in its
 * one form (flows/ref.ts), or refused when no run can ever have it (docs/triage.md "Bulk actions").
 */

/** The keys that narrow a filter beyond its statuses; what a filter names when it is not "all of a status". */
export function narrowingKeys(where: RunFilterInput): string[] {
  return Object.entries(where)
    .filter(([key, value]) => key !== 'status' && value !== undefined)
    .map(([key]) => key);
}

/** How a filter of only statuses reads: "every failed or cancelled run", "every run". */
export function everyRunOf(statuses: readonly string[] | undefined): string {
  if (statuses === undefined || statuses.length === 0) return 'every run';
  const words = statuses.length === 1 ? statuses[0] : `${statuses.slice(0, -1).join(', ')} or ${statuses[statuses.length - 1]}`;
  return `every ${words} run`;
}

export async function checkedBulkWhere(where: RunFilterInput, all: boolean, flows: FlowRefScope): Promise<RunFilterInput> {
  if (!all && narrowingKeys(where).length === 0) {
    throw new ApiError(
      'broad_filter',
      `where names no flow, text, error, issue or time, so it would act on ${everyRunOf(where.status)}; send all: true if that is what you mean`,
    );
  }
  if (where.flow === undefined) return where;
  try {
    return { ...where, flow: await resolveFlowRef(where.flow, flows) };
  } catch (error) {
    if (error instanceof FlowRefError) throw new ApiError('invalid_input', `where.flow: ${error.message}`);
    throw error;
  }
}
