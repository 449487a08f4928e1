import { API_ROUTES, isApiMethod } from '../core/common/api-routes.js';
import { ApiError } from '../core/common/api-errors.js';
import type { HivewatchService } from '../core/service/service.js';
import { toWireError } from '../core/service/wire-error.js';
import { answerCall, type RouteResult } from './routes.js';

/**
 * `POST /api/batch`: several reads in one request, answered in order, each as its own GET would
 * be (its status and body, an error included). The window sends the reads it starts together
 * this way (renderer/api/read-batch.ts): a screen asks once, so the browser's six connections,
 * its per-request work and the server's are paid once, not ten times
 * (docs/decisions/0037-reads-in-parallel.md, "A screen asks once"). Only reads: a command
 * (POST) is never batched, so a batch changes nothing and one call's failure is only its own.
 */

/** The most calls one batch may carry: a screen sends about a dozen. */
export const MAX_BATCH_CALLS = 32;

interface BatchCall {
  method: string;
  input?: Record<string, unknown>;
}

function callsOf(body: unknown): BatchCall[] {
  const calls = (body as { calls?: unknown } | null)?.calls;
  if (!Array.isArray(calls)) throw new ApiError('invalid_input', 'calls: must be a list of { method, input }');
  if (calls.length === 0 || calls.length > MAX_BATCH_CALLS)
    throw new ApiError('invalid_input', `calls: must hold 1 to ${MAX_BATCH_CALLS} calls, not ${calls.length}`);
  return calls.map((call, i) => {
    if (call === null || typeof call !== 'object' || Array.isArray(call)) throw new ApiError('invalid_input', `calls[${i}]: must be { method, input }`);
    const { method, input } = call as { method?: unknown; input?: unknown };
    if (typeof method !== 'string') throw new ApiError('invalid_input', `calls[${i}].method: must be a method's name`);
    if (input !== undefined && (input === null || typeof input !== 'object' || Array.isArray(input)))
      throw new ApiError('invalid_input', `calls[${i}].input: must be an object`);
    return input === undefined ? { method } : { method, input: input as Record<string, unknown> };
  });
}

/** Where a call's unexpected error (a 5xx other than 503) is told, with its stack, as a route's is (server/http.ts). */
type Log = (message: string) => void;

async function answerOne(service: HivewatchService, call: BatchCall, log: Log): Promise<RouteResult> {
  try {
    if (!isApiMethod(call.method)) throw new ApiError('invalid_input', `${call.method}: no such method`);
    if (API_ROUTES[call.method].verb !== 'GET') throw new ApiError('invalid_input', `${call.method}: only reads can be batched`);
    return await answerCall(service, call.method, call.input ?? {});
  } catch (error) {
    const wire = toWireError(error);
    if (wire.status >= 500 && wire.status !== 503) {
      log(`hivewatch: POST /api/batch ${call.method}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    }
    return { status: wire.status, body: wire.body };
  }
}

/** The answers of a batch's calls, in their order; a malformed batch is one `invalid_input` for the whole request. */
export async function answerBatch(service: HivewatchService, body: unknown, log: Log): Promise<{ results: RouteResult[] }> {
  const results: RouteResult[] = [];
  for (const call of callsOf(body)) results.push(await answerOne(service, call, log));
  return { results };
}
