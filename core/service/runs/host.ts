import { resumeProblem } from '../../engine/step/resume.js';
import type { CheckResult, FlowPlan } from '../../flow/plan/plan.js';
import { checkedForDefaultAgent } from '../../flow/check/retry-owners.js';
import { ACTIVE_STATUSES } from '../api.js';
import { ApiError } from '../../common/api-errors.js';
import { checkFlowFileAs } from '../flows/file.js';
import { checkLoaded, type LoadedFlow } from '../flows/catalog.js';
import { settingsOfRow, type LaunchOptions, type RunSettings } from './hosted.js';
import { invalidFlowMessage, journalInvalidRun } from './invalid-run.js';
import { parseInput } from '../schemas.js';
import { guard, refuseExternal, runRowOr404, type ServiceContext } from '../service-context.js';
import type { HivewatchService, HivewatchServiceOptions, RunFileInput, RunFileResult } from '../service-types.js';

/**
 * The run host's API: starting, retrying and resuming runs in this process (the runs themselves
 * live in HostedRuns). A flow that does not check is journaled as a failed run before the caller
 * hears the 400, so every attempt to run something is on record (invalid-run.ts).
 */

type RunHostApi = Pick<HivewatchService, 'startRun' | 'retryRun' | 'resumeRun' | 'runFile' | 'whenFinished' | 'activeRunIds'>;
type Attempt = RunSettings & { retryOf: string | null };

/** A resumed run's plan: a flow that does not check (any more) is a 400. */
function checkedPlan(flow: LoadedFlow, defaultAgent: string | null): FlowPlan {
  const checked = checkedForDefaultAgent(checkLoaded(flow), defaultAgent);
  if (checked.ok && checked.plan !== null) return checked.plan;
  throw new ApiError('invalid_flow', invalidFlowMessage(flow.id, checked));
}

/** A new run's settings: what the caller asked, else the service's defaults. */
function settingsOf(
  input: { maxSteps?: number | undefined; concurrency?: number | undefined; virtualClock?: boolean | undefined; agent?: string | null | undefined },
  options: HivewatchServiceOptions,
): RunSettings {
  return {
    maxSteps: input.maxSteps ?? 100,
    concurrency: input.concurrency ?? 4,
    virtual: input.virtualClock ?? options.clock === 'virtual',
    defaultAgent: input.agent ?? options.defaultAgent ?? null,
  };
}

export function runHost(ctx: ServiceContext): RunHostApi {
  const { store, options, runs, catalog } = ctx;

  /** Journals an attempt to run a flow that does not check as a failed run (invalid-run.ts); its id. */
  const recordInvalid = (flow: string, source: string | null, checked: CheckResult, run: Attempt): Promise<string> =>
    journalInvalidRun(ctx.sink, ctx.writePending, { flow, source, checked, settings: run, retryOf: run.retryOf, project: options.project ?? null });

  /** The 400 for a flow that does not check, once the attempt is on record as a failed run. */
  const refuseInvalid = async (flow: LoadedFlow, checked: CheckResult, run: Attempt): Promise<ApiError> => {
    const runId = await recordInvalid(flow.id, flow.notText ? null : flow.source, checked, run);
    return new ApiError('invalid_flow', `${invalidFlowMessage(flow.id, checked)}; recorded as failed run ${runId}`);
  };

  const launched = async (launchOptions: LaunchOptions): Promise<{ runId: string }> => ({ runId: (await runs.launch(launchOptions)).runId });

  return {
    startRun: (input) =>
      guard(async () => {
        const args = parseInput('startRun', input);
        const flow = await catalog.load(args.flow);
        const run = settingsOf(args, options);
        const checked = checkedForDefaultAgent(checkLoaded(flow), run.defaultAgent);
        if (!checked.ok || checked.plan === null) throw await refuseInvalid(flow, checked, { ...run, retryOf: null });
        return launched({ plan: checked.plan, flowPath: flow.path, ...run });
      }),

    retryRun: (input) =>
      guard(async () => {
        const args = parseInput('retryRun', input);
        await ctx.writePending();
        const row = await runRowOr404(store, args.runId);
        refuseExternal(row, 'retry it: start the agent again where it runs');
        if ((ACTIVE_STATUSES as readonly string[]).includes(row.status)) {
          throw new ApiError('run_active', `run ${args.runId} is ${row.status}; cancel it or let it finish before retrying`);
        }
        const flow = await catalog.loadForRun(args.runId, row.flow);
        const checked = checkedForDefaultAgent(checkLoaded(flow), row.defaultAgent);
        if (!checked.ok || checked.plan === null) throw await refuseInvalid(flow, checked, { ...settingsOfRow(row), retryOf: args.runId });
        return launched({ ...settingsOfRow(row), plan: checked.plan, flowPath: flow.path, retryOf: args.runId });
      }),

    resumeRun: (input) =>
      guard(async () => {
        const args = parseInput('resumeRun', input);
        await ctx.writePending();
        const row = await runRowOr404(store, args.runId);
        refuseExternal(row, 'resume it: the agent resumes its own sessions');
        const resume = await store.resumePointForRun(args.runId);
        const flow = await catalog.loadForRun(args.runId, row.flow);
        const problem = resumeProblem(resume, flow.source);
        if (problem !== null) throw new ApiError('not_resumable', problem);
        return launched({ ...settingsOfRow(row), plan: checkedPlan(flow, row.defaultAgent), flowPath: flow.path, resume });
      }),

    async runFile(input: RunFileInput): Promise<RunFileResult> {
      // The plan is checked under the file's key, which the run records as its flow.
      const settings = settingsOf(input, options);
      const file = await checkFlowFileAs(input.file, store.location);
      const checked = checkedForDefaultAgent(file.checked, settings.defaultAgent);
      if (!checked.ok || checked.plan === null) {
        const runId = await recordInvalid(file.key, file.source, checked, { ...settings, retryOf: input.retryOf ?? null });
        return { kind: 'invalid', diagnostics: checked.diagnostics, runId };
      }
      const refusal = input.resume ? resumeProblem(input.resume, checked.plan.program.source) : null;
      if (refusal !== null) return { kind: 'refused', message: refusal };
      const started = await runs.launch({
        ...settings,
        plan: checked.plan,
        flowPath: input.file,
        resume: input.resume ?? null,
        retryOf: input.retryOf ?? null,
        explicitRepo: input.repo ?? null,
        fallbackDir: input.cwd ?? process.cwd(),
        workspaceMode: input.workspace ?? null,
        observe: input.observe,
      });
      return { kind: 'started', ...started };
    },

    activeRunIds: () => runs.ids(),

    whenFinished: (runId) => runs.get(runId)?.done ?? null,
  };
}
