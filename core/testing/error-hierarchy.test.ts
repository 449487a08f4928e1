import { describe, expect, it } from 'vitest';
import { parseBenchFlags } from '../../bench/harness/flags.js';
import { HivewatchError } from '../base/errors/hivewatch-error.js';
import { readRegularFile } from '../base/regular-file.js';
import { UsageError } from '../cli/args.js';
import { list } from '../otel/receive/decode.js';
import { IngestBusy } from '../otel/receive/ingest-queue.js';
import { ruleFromInput } from '../service/alerts/rules.js';
import { FlowKeyError } from '../service/flows/keys.js';
import { FlowRefError } from '../service/flows/ref.js';
import { RunTakenError, StoreError, type StoreErrorKind } from '../store/store-error.js';
import { tempDirs } from './temp-dirs.js';

/**
 * Every error the product's own machinery throws is a HivewatchError with a code of the one
 * taxonomy, and keeps its name, its message and the fields its callers read.
 */

const tempDir = tempDirs();

/** What a thrown value is, as the hierarchy sees it; fails when it is not a HivewatchError. */
function caught(thrower: () => unknown): { name: string; code: string; category: string; message: string } {
  try {
    thrower();
  } catch (error) {
    expect(error).toBeInstanceOf(HivewatchError);
    const { name, code, category, message } = error as HivewatchError;
    return { name, code, category, message };
  }
  throw new Error('nothing was thrown');
}

describe('the error hierarchy at the edges', () => {
  it("the store's errors take their code from their kind, and a more precise one when given", () => {
    const kinds: Record<StoreErrorKind, string> = {
      not_found: 'USER_NOT_FOUND',
      not_resumable: 'USER_RUN_NOT_RESUMABLE',
      invalid_argument: 'USER_INVALID_INPUT',
      invalid_event: 'SYSTEM_EVENT_REJECTED',
      corrupt: 'SYSTEM_STATE_CORRUPTION',
      closed: 'SYSTEM_STORE_CLOSED',
      unavailable: 'SYSTEM_STORE_UNAVAILABLE',
      run_taken: 'SYSTEM_RUN_TAKEN',
    };
    for (const [kind, code] of Object.entries(kinds)) {
      expect(new StoreError(kind as StoreErrorKind, `a ${kind}`)).toMatchObject({ name: 'StoreError', kind, code, message: `a ${kind}` });
    }
    const cause = new Error('ECONNREFUSED');
    expect(new StoreError('unavailable', 'away', { cause }).cause).toBe(cause);
    expect(new StoreError('corrupt', 'newer', { code: 'SYSTEM_SCHEMA_TOO_NEW' })).toMatchObject({
      kind: 'corrupt',
      code: 'SYSTEM_SCHEMA_TOO_NEW',
      category: 'system',
    });
  });

  it('a run taken by another host keeps its run ids and its sentence', () => {
    expect(new RunTakenError(['run_a'])).toMatchObject({
      name: 'RunTakenError',
      kind: 'run_taken',
      code: 'SYSTEM_RUN_TAKEN',
      runIds: ['run_a'],
      message: 'run run_a was interrupted by another host while this one was not heard from; this host no longer owns it',
    });
    expect(new RunTakenError(['run_a', 'run_b']).message).toBe(
      'runs run_a, run_b were interrupted by another host while this one was not heard from; this host no longer owns them',
    );
    expect(new RunTakenError(['run_a'])).toBeInstanceOf(StoreError);
  });

  it("the service's input errors: an alert rule, a flow reference, a flow key", () => {
    expect(caught(() => ruleFromInput({ when: 'run-crashed', webhook: 'https://example.com/' }, 'alr_1', 0, 'test'))).toEqual({
      name: 'AlertInputError',
      code: 'USER_INVALID_INPUT',
      category: 'user',
      message:
        'unknown alert condition "run-crashed" (one of: run-failed, new-issue, regression, escalating, retrying-longer-than, retrying-more-than, running-longer-than, usage-limit, session-failed, approval-pending-longer-than, telemetry-silent-longer-than)',
    });
    expect(new FlowRefError('no flow "nope"')).toMatchObject({ name: 'FlowRefError', code: 'USER_FLOW_NOT_FOUND', message: 'no flow "nope"' });
    const problems = {
      no_folder: 'USER_NO_FLOWS_FOLDER',
      not_found: 'USER_FLOW_NOT_FOUND',
      outside_folder: 'USER_FLOW_OUTSIDE_FOLDER',
      not_a_key: 'USER_INVALID_INPUT',
      not_a_file: 'USER_FLOW_NOT_A_FILE',
    } as const;
    for (const [problem, code] of Object.entries(problems)) {
      const error = new FlowKeyError(problem as keyof typeof problems, 'user/x.prose', `flow user/x.prose: ${problem}`);
      expect(error).toMatchObject({ name: 'FlowKeyError', problem, key: 'user/x.prose', code, message: `flow user/x.prose: ${problem}` });
      expect(error.toEnvelope().context).toEqual({ problem, key: 'user/x.prose' });
    }
  });

  it("OTLP ingest's refusals: a payload that is not OTLP, a queue that is full or behind", () => {
    expect(caught(() => list('logs', 'resourceLogs'))).toEqual({
      name: 'OtlpDecodeError',
      code: 'USER_INVALID_PAYLOAD',
      category: 'user',
      message: 'resourceLogs must be an array',
    });
    expect(new IngestBusy(429, 'ingest is busy')).toMatchObject({ name: 'IngestBusy', status: 429, code: 'POLICY_INGEST_BUSY', retryAfterSeconds: 1 });
    expect(new IngestBusy(503, 'not journaled in time')).toMatchObject({ status: 503, code: 'SYSTEM_INGEST_SLOW', category: 'system' });
  });

  it('the command lines: a usage error, a bench flag, a file that is not a regular file', () => {
    expect(new UsageError('expected exactly one flow file, got 0')).toMatchObject({
      name: 'UsageError',
      code: 'USER_USAGE',
      message: 'expected exactly one flow file, got 0',
    });
    expect(caught(() => parseBenchFlags(['--only', 'stor']))).toMatchObject({ name: 'BenchFlagError', code: 'USER_USAGE', category: 'user' });
    expect(caught(() => readRegularFile(tempDir('hw-hierarchy-'), 1024))).toEqual({
      name: 'NotReadableFile',
      code: 'USER_FILE_NOT_READABLE',
      category: 'user',
      message: 'it is a directory, not a regular file',
    });
  });
});
