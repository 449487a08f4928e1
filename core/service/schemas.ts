import { z } from 'zod';
import {
  BUCKETS,
  BULK_ACTIONS,
  BULK_MAX_RUNS,
  ERROR_CATEGORY_NAMES,
  ERROR_DIMENSIONS,
  FAILURE_DIMENSIONS,
  IGNORE_BOUNDS,
  ISSUE_ACTIONS,
  ISSUE_SORTS,
  ISSUE_STATUS_FILTERS,
  RUN_SORTS,
  RUN_LIST_STATUSES,
  SERIES_DIMENSIONS,
  type ApiMethod,
} from './api.js';
import { ApiError } from '../common/api-errors.js';

/**
 * One schema per API input, shared by the service (in-process callers), the HTTP routes and
 * the IPC handlers, so every path rejects the same input with the same message. Messages are
 * written for an operator: `<field>: <what is wrong>`, several joined by "; ".
 */

export const LIMITS = {
  maxListLimit: 1_000,
  maxEventsLimit: 1_000,
  maxSteps: 100_000,
  maxConcurrency: 64,
  /** A flow's source text (checkFlow): 512 KiB of characters. */
  maxSourceChars: 512 * 1024,
  maxText: 200,
  maxReason: 500,
  maxCursor: 1_000,
  /** Milliseconds since the epoch up to year 275760 (what a JS Date can hold). */
  maxTime: 8.64e15,
} as const;

type Issue = { input?: unknown };
const required =
  (what: string) =>
  (issue: Issue): string =>
    issue.input === undefined ? 'is required' : what;

const text = (max: number, what = 'must be a string') =>
  z
    .string({ error: required(what) })
    .min(1, 'must not be empty')
    .max(max, `must be at most ${max} characters`);

const int = (min: number, max: number) =>
  z
    .number({ error: required('must be a number') })
    // One message for a value past what a double holds exactly, not that and "at most" too.
    .int({ message: 'must be a whole number', abort: true })
    .min(min, `must be at least ${min}`)
    .max(max, `must be at most ${max}`);

const oneOf = <const T extends readonly [string, ...string[]]>(values: T) => z.enum(values, { error: required(`must be one of ${values.join(', ')}`) });

/** `z.strictObject` with operator-readable messages for a non-object and for unknown fields. */
const object = <S extends z.ZodRawShape>(shape: S) =>
  z.strictObject(shape, {
    error: (issue) => {
      if (issue.code === 'unrecognized_keys') {
        const keys = (issue as { keys: string[] }).keys;
        return `unknown field${keys.length > 1 ? 's' : ''} ${keys.map((k) => `"${k}"`).join(', ')}`;
      }
      return 'input must be an object';
    },
  });

const runIdSchema = text(128, 'must be a run id').regex(/^[A-Za-z0-9_.:-]+$/, 'must be a run id (letters, digits, _ . : -)');
const alertRuleIdSchema = text(64, 'must be an alert rule id').regex(/^alr_[0-9a-f]+$/, 'must be an alert rule id like alr_3f9a0c1b2d');
const taskIdSchema = z.string({ error: required('must be a task id') }).regex(/^\d{1,9}:\d{1,9}$/, 'must be a task id like "1:0" (step:ordinal)');
/** Flow ids name a file in one of the two flow folders; no paths, so nothing outside them is reachable. */
export const flowIdSchema = z
  .string({ error: required('must be a flow id') })
  .max(200, 'must be at most 200 characters')
  .regex(/^(examples|user)\/[A-Za-z0-9][A-Za-z0-9._-]*\.prose$/, 'must be a flow id: examples/<file>.prose or user/<file>.prose');
const agentSchema = text(64).regex(/^[A-Za-z_][A-Za-z0-9_-]*$/, 'must be an agent name (letters, digits, _ -)');
const timeSchema = int(0, LIMITS.maxTime);
const limitSchema = int(1, LIMITS.maxListLimit);
const cursorSchema = text(LIMITS.maxCursor);
/** An issue's fingerprint (16 hex digits) or a prefix of it. */
const issueIdSchema = text(64, 'must be an issue id').regex(/^[0-9a-f]+$/, 'must be an issue id (its fingerprint, or the start of it: hex digits)');

const errorFilterShape = {
  since: timeSchema.optional(),
  until: timeSchema.optional(),
  flow: text(300).optional(),
  category: oneOf(ERROR_CATEGORY_NAMES).optional(),
  origin: text(200).optional(),
  code: text(100)
    .regex(/^[A-Z][A-Z0-9_]*$/, 'must be an error code like RUNTIME_TIMEOUT')
    .optional(),
  runId: runIdSchema.optional(),
};

/** The error views' filter: the error filter and the issue status whose occurrences they show. */
const errorViewShape = { ...errorFilterShape, issueStatus: oneOf(ISSUE_STATUS_FILTERS).optional() };

const runFilterShape = {
  status: z
    .array(oneOf(RUN_LIST_STATUSES), { error: 'must be a list of run statuses (or waiting-limit, waiting-approval)' })
    .max(RUN_LIST_STATUSES.length, `must list at most ${RUN_LIST_STATUSES.length} statuses`)
    .optional(),
  flow: text(300).optional(),
  code: errorFilterShape.code,
  category: errorFilterShape.category,
  anyCode: errorFilterShape.code,
  anyCategory: errorFilterShape.category,
  issue: issueIdSchema.optional(),
  text: z.string({ error: 'must be a string' }).max(LIMITS.maxText, `must be at most ${LIMITS.maxText} characters`).optional(),
  since: timeSchema.optional(),
  until: timeSchema.optional(),
};

/** An ignore's condition, bounded (IGNORE_BOUNDS): the API's input, and the book's own check of every caller's. */
const ignoreBoundsShape = {
  forMs: int(IGNORE_BOUNDS.minForMs, IGNORE_BOUNDS.maxForMs).optional(),
  untilCount: int(1, IGNORE_BOUNDS.maxCount).optional(),
};
export const ignoreBoundsSchema = z.object(ignoreBoundsShape);

/**
 * A bulk action's filter: the Runs filter with every value required to say something. An empty
 * text, flow or status list narrows nothing, so it is refused rather than read as "every run".
 */
const saysSomething = (max: number) =>
  z
    .string({ error: required('must be a string') })
    .max(max, `must be at most ${max} characters`)
    .regex(/\S/, 'must not be empty or blank');
const bulkWhereShape = {
  ...runFilterShape,
  status: runFilterShape.status.unwrap().min(1, 'must name at least one status').optional(),
  flow: saysSomething(500).optional(),
  text: saysSomething(LIMITS.maxText).optional(),
};

const issueInputs = {
  listIssues: object({
    ...errorFilterShape,
    status: oneOf(ISSUE_STATUS_FILTERS).optional(),
    sort: oneOf(ISSUE_SORTS).optional(),
    limit: limitSchema.optional(),
    cursor: cursorSchema.optional(),
  }),
  getIssue: object({ id: issueIdSchema }),
  getIssueDetail: object({ ...errorFilterShape, id: issueIdSchema }),
  setIssueStatus: object({
    id: issueIdSchema,
    action: oneOf(ISSUE_ACTIONS),
    ...ignoreBoundsShape,
    untilEscalating: z.boolean({ error: 'must be true or false' }).optional(),
    by: oneOf(['window', 'cli']).optional(),
    reason: text(500).optional(),
  }),
};

const noInput = z.union([z.undefined(), object({})], { error: 'takes no input' });

export const schemas = {
  startRun: object({
    flow: flowIdSchema,
    maxSteps: int(1, LIMITS.maxSteps).optional(),
    concurrency: int(1, LIMITS.maxConcurrency).optional(),
    virtualClock: z.boolean({ error: 'must be true or false' }).optional(),
    agent: agentSchema.optional(),
  }),
  cancelRun: object({ runId: runIdSchema, reason: text(LIMITS.maxReason).optional() }),
  retryRun: object({ runId: runIdSchema }),
  resumeRun: object({ runId: runIdSchema }),
  skipBackoff: object({ runId: runIdSchema, taskId: taskIdSchema }),
  listRuns: object({ ...runFilterShape, sort: oneOf(RUN_SORTS).optional(), limit: limitSchema.optional(), cursor: cursorSchema.optional() }),
  countRuns: object(runFilterShape),
  getRun: object({ runId: runIdSchema }),
  getEvents: object({
    runId: runIdSchema,
    afterSeq: int(0, Number.MAX_SAFE_INTEGER).optional(),
    limit: int(1, LIMITS.maxEventsLimit).optional(),
  }),
  listFlows: noInput,
  databaseStatus: noInput,
  checkFlow: object({
    source: z.string({ error: required('must be a string') }).max(LIMITS.maxSourceChars, `must be at most ${LIMITS.maxSourceChars} characters`),
    file: text(260).optional(),
  }),
  saveFlow: object({
    name: z
      .string({ error: required('must be a file name') })
      .max(64, 'must be at most 64 characters')
      .regex(
        /^[A-Za-z0-9][A-Za-z0-9_-]*(\.[A-Za-z0-9_-]+)*$/,
        'must be a file name: letters, digits, _ - and dots, starting with a letter or digit (no folders)',
      ),
    source: z
      .string({ error: required('must be a string') })
      .min(1, 'must not be empty')
      .max(LIMITS.maxSourceChars, `must be at most ${LIMITS.maxSourceChars} characters`),
    overwrite: z.boolean({ error: 'must be true or false' }).optional(),
    /** The flow the draft was made from: it fills in the `[secret NAME]` markers the window showed. */
    from: flowIdSchema.optional(),
  }),
  getNotificationSettings: noInput,
  setFlowMuted: object({
    flow: text(1000, 'must be a flow'),
    muted: z.boolean({ error: required('must be true or false') }),
  }),
  errorCounts: object({ ...errorViewShape, by: oneOf(ERROR_DIMENSIONS), limit: limitSchema.optional() }),
  failureCounts: object({ ...errorViewShape, by: oneOf(FAILURE_DIMENSIONS), limit: limitSchema.optional() }),
  errorSeries: object({ ...errorViewShape, bucket: oneOf(BUCKETS), stackBy: oneOf(SERIES_DIMENSIONS) }),
  errorGroups: object({ ...errorViewShape, limit: limitSchema.optional(), trendBins: int(1, 200).optional() }),
  listErrors: object({
    ...errorViewShape,
    fingerprint: text(200).optional(),
    limit: limitSchema.optional(),
    cursor: cursorSchema.optional(),
  }),
  listAlertRules: noInput,
  addAlertRule: object({
    when: text(100, 'must be a condition'),
    webhook: text(2000, 'must be a URL').optional(),
    desktop: z.boolean({ error: 'must be true or false' }).optional(),
    flow: text(500).optional(),
    code: text(100).optional(),
    category: text(100).optional(),
    format: text(20).optional(),
    throttle: text(20).optional(),
  }),
  removeAlertRule: object({ id: alertRuleIdSchema }),
  testAlertRule: object({ id: alertRuleIdSchema }),
  listAlertDeliveries: object({ limit: limitSchema.optional() }),
  listDesktopAlerts: object({ after: timeSchema.optional() }),
  usageByFlow: object({ since: timeSchema.optional(), until: timeSchema.optional(), flow: text(1000).optional() }),
  costliestRuns: object({ since: timeSchema.optional(), until: timeSchema.optional(), flow: text(1000).optional(), limit: limitSchema.optional() }),
  costSplit: object({
    ...errorFilterShape,
    issueStatus: oneOf(ISSUE_STATUS_FILTERS).optional(),
    issue: text(16, 'must be an issue id')
      .regex(/^[0-9a-f]{16}$/, 'must be an issue id (its whole fingerprint: 16 hex digits)')
      .optional(),
  }),
  flowHealth: object({ since: timeSchema.optional(), until: timeSchema.optional() }),
  bulkRuns: object({
    action: oneOf(BULK_ACTIONS),
    runIds: z
      .array(runIdSchema, { error: 'must be a list of run ids' })
      .min(1, 'must name at least one run')
      .max(BULK_MAX_RUNS, `must name at most ${BULK_MAX_RUNS} runs`)
      .optional(),
    where: object(bulkWhereShape).optional(),
    all: z.boolean({ error: 'must be true or false' }).optional(),
    dryRun: z.boolean({ error: 'must be true or false' }).optional(),
    reason: text(LIMITS.maxReason).optional(),
  })
    .refine((input) => (input.runIds === undefined) !== (input.where === undefined), { message: 'give either runIds or where, not both and not neither' })
    .refine((input) => input.all === undefined || input.where !== undefined, { message: 'all goes with where (every run of its statuses), not with runIds' }),
  ...issueInputs,
} satisfies Record<ApiMethod, z.ZodType>;

/** The subscription's own input (IPC and the service; SSE takes Last-Event-ID instead). */
export const subscribeSchema = object({ afterId: int(0, Number.MAX_SAFE_INTEGER).optional() });

type Schemas = typeof schemas;
export type InputOf<M extends ApiMethod> = z.output<Schemas[M]>;

function pathOf(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? String(part) : `.${String(part)}`;
  }
  return out;
}

/** The operator-readable message of a failed parse: `field: problem; other: problem`. */
function formatIssues(error: z.ZodError): string {
  return error.issues.map((issue) => (issue.path.length === 0 ? issue.message : `${pathOf(issue.path)}: ${issue.message}`)).join('; ');
}

export function parseWith<T extends z.ZodType>(schema: T, input: unknown): z.output<T> {
  const result = schema.safeParse(input);
  if (!result.success) throw new ApiError('invalid_input', formatIssues(result.error));
  return result.data;
}

/** Validates one API call's input; throws ApiError 400 `invalid_input` with the message. */
export function parseInput<M extends ApiMethod>(method: M, input: unknown): InputOf<M> {
  return parseWith(schemas[method] as z.ZodType, input) as InputOf<M>;
}
