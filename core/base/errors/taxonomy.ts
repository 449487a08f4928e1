/**
 * The closed error taxonomy: eight categories, codes unique within a category, and for each code
 * whether it is recoverable and what an operator should try next.
 */

export const ErrorCategory = {
  system: 'system',
  runtime: 'runtime',
  agent: 'agent',
  scope: 'scope',
  verification: 'verification',
  git: 'git',
  user: 'user',
  policy: 'policy',
} as const;
export type ErrorCategory = (typeof ErrorCategory)[keyof typeof ErrorCategory];
export const ERROR_CATEGORIES: readonly ErrorCategory[] = Object.values(ErrorCategory);

interface CodeInfo {
  readonly category: ErrorCategory;
  readonly recoverable: boolean;
  readonly hint: string | null;
}

const code = (category: ErrorCategory, recoverable: boolean, hint: string | null): CodeInfo => ({
  category,
  recoverable,
  hint,
});

/** Every code the product can raise. The prefix of a code always names its category. */
export const ERROR_CODES = {
  SYSTEM_STATE_CORRUPTION: code('system', false, 'Rebuild projections with `hivewatch replay` and investigate the journal'),
  SYSTEM_EVENT_WRITE_FAILED: code(
    'system',
    false,
    'Check that the database is reachable, has disk space and lets Hivewatch write; the unwritten events are written once it does',
  ),
  /** The database refused an event for what it held: no retry writes it; the run's journal ends there. */
  SYSTEM_EVENT_REJECTED: code(
    'system',
    false,
    "The database refused an event of this run (the message says why): report it with the run's journal; resume continues from the last checkpoint",
  ),
  SYSTEM_INVARIANT_VIOLATED: code('system', false, 'Report a bug with the run journal attached'),
  SYSTEM_RUN_INTERRUPTED: code('system', true, 'Resume the run from its last checkpoint'),
  SYSTEM_CANCELLED: code('system', false, null),

  RUNTIME_CRASHED: code('runtime', true, 'Retry; inspect stderr if it keeps crashing'),
  RUNTIME_TIMEOUT: code('runtime', true, 'Retry with an extended timeout'),
  RUNTIME_CONNECTION_FAILED: code('runtime', false, 'Check that the runtime command is installed and on PATH'),
  RUNTIME_OUTPUT_MALFORMED: code('runtime', true, 'Retry; check the runtime output format'),
  RUNTIME_RATE_LIMIT: code('runtime', true, 'Wait for the rate limit window to pass'),
  RUNTIME_UNKNOWN: code('runtime', true, 'Retry; inspect the runtime output'),
  /** The model provider's API answered with a server error (5xx): the command ran, the provider failed. */
  RUNTIME_PROVIDER_ERROR: code('runtime', true, "Retry later; check the provider's status page if it persists"),
  /** The agent CLI reported an exception of its own (Claude Code's `internal_error`): the CLI failed, not the provider or the agent. */
  RUNTIME_INTERNAL_ERROR: code('runtime', true, 'Update the CLI; report the error name to its vendor if it repeats'),

  AGENT_SCOPE_VIOLATION: code('agent', false, 'Narrow the agent instructions to the allowed scope'),
  AGENT_NO_CHANGES: code('agent', true, 'Provide clearer success criteria'),
  AGENT_INVALID_OUTPUT: code('agent', true, 'Retry with a stricter output instruction'),
  /** A tool the agent called reported failure (telemetry's tool results). */
  AGENT_TOOL_FAILED: code('agent', true, "Inspect the tool's error; the agent may recover on its own"),
  /** A hook of the agent stopped what it was run for (a blocking result): origin `hook:<name>`. */
  AGENT_HOOK_BLOCKED: code('agent', false, "The hook stopped the action on purpose: read its reason, then change the request or the hook's rule"),
  /** A hook of the agent failed without blocking, or was cancelled: the agent went on without it. Origin `hook:<name>`. */
  AGENT_HOOK_FAILED: code('agent', true, "Run the hook's command by hand and fix it: the agent went on without it"),
  /** An MCP server the agent is configured with could not be connected: its tools were missing. Origin `mcp:<server>`. */
  AGENT_MCP_CONNECTION_FAILED: code('agent', true, "Check the MCP server's command or URL and its credentials (`claude mcp get <name>`)"),
  /** The agent could not compact its context: the conversation goes on at full size, towards its context limit. */
  AGENT_COMPACTION_FAILED: code('agent', true, 'Start a new session, or compact by hand (`/compact`), before the context runs out'),
  /** The model declined to answer (the provider's refusal stop reason): trying the same request again gets the same answer. */
  AGENT_MODEL_REFUSED: code('agent', false, "Rephrase the request; check it against the provider's usage policy"),

  SCOPE_VIOLATION_WRITE: code('scope', false, 'Abort and investigate the scope definition'),
  SCOPE_VIOLATION_READ: code('scope', false, 'Abort and investigate the scope definition'),
  SCOPE_VIOLATION_EXECUTE: code('scope', false, 'Abort and investigate the scope definition'),
  SCOPE_CONFLICT_UNRESOLVED: code('scope', false, 'Serialize the conflicting branches'),

  VERIFICATION_CHECK_FAILED: code('verification', true, 'Let the agent correct its work and retry'),
  VERIFICATION_AGENT_REJECTED: code('verification', false, 'Address the verifier findings, then start the task again'),
  VERIFICATION_TIMEOUT: code('verification', true, 'Retry with an extended verification timeout'),
  VERIFICATION_CRASH: code('verification', true, 'Retry; inspect the verifier output'),

  GIT_CHECKOUT_FAILED: code('git', true, 'Check the working tree for local changes'),
  GIT_COMMIT_FAILED: code('git', true, 'Check git hooks and identity'),
  GIT_MERGE_CONFLICT: code('git', false, 'Manual merge conflict resolution required'),
  GIT_WORKTREE_FAILED: code('git', true, 'Check git remote connectivity and disk space'),

  USER_INVALID_FLOW: code('user', false, 'Fix the flow at the reported line and column'),
  USER_INVALID_CONFIG: code('user', false, 'Fix the configuration file'),
  USER_INVALID_SCOPE: code('user', false, 'Fix the scope definition'),
  USER_MISSING_DEPENDENCY: code('user', false, 'Install the missing tool or name an agent with --agent'),
  /** A rendered prompt no process can be given (a NUL character, more than 128 KiB): refused before the agent starts. */
  USER_INVALID_PROMPT: code('user', false, 'Pass less into the prompt, or strip NUL characters from what it takes in'),
  USER_THROWN: code('user', false, null),

  POLICY_RETRY_LIMIT_EXCEEDED: code('policy', false, 'Raise the retry limit or fix the underlying failure'),
  POLICY_TIMEOUT_EXCEEDED: code('policy', false, 'Raise the flow timeout'),
  POLICY_RESOURCE_EXHAUSTED: code('policy', false, 'Free resources or raise the quota'),
  POLICY_MAX_STEPS_EXCEEDED: code('policy', false, 'Raise max-steps or check the flow for a runaway loop'),
  POLICY_COMMIT_REJECTED: code('policy', false, 'Give each parallel branch its own result channel'),

  // The product's own machinery: its API, store, ingest and command line refusing a request or
  // failing on their own, never a run's failure. The edges turn them into what their callers read
  // (HTTP status and wire code: core/common/api-errors.ts; exit code: core/cli/exit-codes.ts).
  USER_INVALID_INPUT: code('user', false, 'Fix the input the message names'),
  USER_INVALID_JSON: code('user', false, 'Send a valid JSON body'),
  USER_INVALID_PAYLOAD: code('user', false, 'Send a request of the OTLP signal the endpoint takes'),
  USER_PAYLOAD_TOO_LARGE: code('user', false, 'Send a smaller request body'),
  USER_UNSUPPORTED_MEDIA_TYPE: code('user', false, 'Send a Content-Type and Content-Encoding the endpoint takes'),
  USER_REQUEST_TIMEOUT: code('user', false, 'Send the whole request body in time'),
  USER_METHOD_NOT_ALLOWED: code('user', false, 'Use the HTTP method the endpoint takes'),
  USER_ENDPOINT_NOT_FOUND: code('user', false, 'Use an endpoint the server has'),
  USER_UNKNOWN_METHOD: code('user', false, 'Call a method of the API'),
  USER_NOT_FOUND: code('user', false, null),
  USER_RUN_NOT_FOUND: code('user', false, 'Check the run id (`hivewatch runs` lists them)'),
  USER_FLOW_NOT_FOUND: code('user', false, 'Check the flow name, path or id'),
  USER_FLOW_NOT_A_FILE: code('user', false, 'Name a regular file'),
  USER_FLOW_OUTSIDE_FOLDER: code('user', false, 'Name a flow inside the flows folder'),
  USER_FLOW_EXISTS: code('user', false, 'Choose another name, or overwrite on purpose'),
  USER_FLOW_UNAVAILABLE: code('user', false, null),
  USER_NO_FLOWS_FOLDER: code('user', false, 'Configure a flows folder'),
  USER_HIDDEN_SECRET: code('user', false, 'Type the secret in again'),
  USER_ISSUE_NOT_FOUND: code('user', false, 'Check the issue id (`hivewatch issues` lists them)'),
  USER_ISSUE_AMBIGUOUS: code('user', false, 'Give more characters of the issue id'),
  USER_ALERT_RULE_NOT_FOUND: code('user', false, 'Check the rule id (`hivewatch alerts list`)'),
  USER_TOO_MANY_RUNS: code('user', false, 'Narrow the filter, or act in parts'),
  USER_BROAD_FILTER: code('user', false, 'Narrow the filter, or say all on purpose'),
  USER_RUN_NOT_RESUMABLE: code('user', false, null),
  USER_RUN_ACTIVE: code('user', false, 'Wait for the run to end, or cancel it'),
  USER_RUN_EXTERNAL: code('user', false, 'Act on the agent itself: Hivewatch watches this run, it does not run it'),
  USER_FILE_NOT_READABLE: code('user', false, 'Name a regular file within the size limit'),
  USER_USAGE: code('user', false, "See the command's --help"),
  POLICY_UNAUTHORIZED: code('policy', false, 'Send the token the server printed'),
  POLICY_FORBIDDEN_HOST: code('policy', false, 'Open the server by its 127.0.0.1 address'),
  POLICY_FORBIDDEN_ORIGIN: code('policy', false, 'Call the API from its own page'),
  POLICY_FORBIDDEN_FRAME: code('policy', false, "Call the API from the app's own window"),
  POLICY_INGEST_BUSY: code('policy', false, 'Retry later: the exporter retries on its own'),
  SYSTEM_INGEST_SLOW: code('system', true, 'Retry later: the exporter retries on its own'),
  SYSTEM_STORE_UNAVAILABLE: code('system', true, 'Wait for the database to come back, then try again'),
  SYSTEM_STORE_CLOSED: code('system', false, null),
  SYSTEM_SCHEMA_TOO_NEW: code('system', false, 'Upgrade Hivewatch'),
  SYSTEM_RUN_TAKEN: code('system', false, 'Resume the run: another host interrupted it'),
  SYSTEM_SERVICE_CLOSING: code('system', false, null),
  SYSTEM_ALERTS_UNAVAILABLE: code('system', false, null),
  SYSTEM_CLIENT_ABORTED: code('system', false, null),
  SYSTEM_UNREADABLE_ANSWER: code('system', false, 'Check that the server is Hivewatch and is running'),
  SYSTEM_INTERNAL: code('system', false, 'Report a bug with the message'),

  // Signals the engine and the flow checker throw and catch themselves. They are HivewatchErrors
  // so that every throwable of the product is one, but none is ever journaled or sent.
  /** An operator's "retry now" ended a backoff sleep early (the engine journals backoffSkipped instead). */
  SYSTEM_BACKOFF_SKIPPED: code('system', false, null),
  /** A flow whose step count depends on timing (a throwing branch of a fail-fast parallel): the count is left out. */
  SYSTEM_STEPS_UNCOUNTABLE: code('system', false, null),
} as const satisfies Record<string, CodeInfo>;

export type ErrorCode = keyof typeof ERROR_CODES;

export function isErrorCode(value: string): value is ErrorCode {
  return Object.prototype.hasOwnProperty.call(ERROR_CODES, value);
}

export function codeInfo(errorCode: ErrorCode): CodeInfo {
  return ERROR_CODES[errorCode];
}

const ORIGIN_PATTERN = /^(system|verifier|scope_enforcer|git|user|policy|(runtime|agent|hook|mcp|check):[A-Za-z0-9_.-]+)$/;

/**
 * Origins: `system`, `runtime:<name>`, `agent:<name>`, `hook:<name>` (a hook the agent ran),
 * `mcp:<server>` (an MCP server the agent uses), `verifier`, `check:<name>`, `scope_enforcer`,
 * `git`, `user`, `policy`.
 */
export function isValidOrigin(origin: string): boolean {
  return ORIGIN_PATTERN.test(origin);
}

/**
 * Which origins each category may have (hivemind-error-model.md §4.2: "attribution is never
 * ambiguous"). Categories the spec leaves out follow §3: git errors come from `git`, user errors
 * from `user`, policy errors from `policy`.
 */
const ORIGINS_OF: Record<ErrorCategory, { pattern: RegExp; describe: string }> = {
  system: { pattern: /^system$/, describe: '"system"' },
  runtime: { pattern: /^runtime:[A-Za-z0-9_.-]+$/, describe: '"runtime:<adapter>"' },
  // A hook or an MCP server is part of the agent's setup: its failures are the agent's, named precisely.
  agent: { pattern: /^(agent|hook|mcp):[A-Za-z0-9_.-]+$/, describe: '"agent:<agent>", "hook:<name>" or "mcp:<server>"' },
  scope: { pattern: /^scope_enforcer$/, describe: '"scope_enforcer"' },
  verification: { pattern: /^(verifier|check:[A-Za-z0-9_.-]+)$/, describe: '"verifier" or "check:<name>"' },
  git: { pattern: /^git$/, describe: '"git"' },
  user: { pattern: /^user$/, describe: '"user"' },
  policy: { pattern: /^policy$/, describe: '"policy"' },
};

/**
 * The error model's invariants (§9) that one error can break on its own: its origin follows its
 * category, and scope errors are fatal to the attempt. Returns what is wrong, or null.
 */
export function invariantProblem(category: ErrorCategory, origin: string, recoverable: boolean): string | null {
  const origins = ORIGINS_OF[category];
  if (!origins.pattern.test(origin)) return `a ${category} error must originate from ${origins.describe}, got "${origin}"`;
  if (category === 'scope' && recoverable) return 'a scope error is always fatal to the attempt: it cannot be recoverable';
  return null;
}

/** System errors escalate (§9): no catch catches them and no continue / ignore parallel absorbs them. */
export function escalates(category: ErrorCategory): boolean {
  return category === 'system';
}

/** The origin an error of this category has unless a more precise one is known. */
export function defaultOrigin(category: ErrorCategory): string {
  switch (category) {
    case 'runtime':
      return 'runtime:unknown';
    case 'agent':
      return 'agent:default';
    case 'scope':
      return 'scope_enforcer';
    case 'verification':
      return 'verifier';
    default:
      return category;
  }
}
