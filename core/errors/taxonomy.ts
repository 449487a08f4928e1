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
  SYSTEM_EVENT_WRITE_FAILED: code('system', false, 'Check disk space and database permissions'),
  SYSTEM_INVARIANT_VIOLATED: code('system', false, 'Report a bug with the run journal attached'),
  SYSTEM_RUN_INTERRUPTED: code('system', true, 'Resume the run from its last checkpoint'),
  SYSTEM_CANCELLED: code('system', false, null),

  RUNTIME_CRASHED: code('runtime', true, 'Retry; inspect stderr if it keeps crashing'),
  RUNTIME_TIMEOUT: code('runtime', true, 'Retry with an extended timeout'),
  RUNTIME_CONNECTION_FAILED: code('runtime', false, 'Check that the runtime command is installed and on PATH'),
  RUNTIME_OUTPUT_MALFORMED: code('runtime', true, 'Retry; check the runtime output format'),
  RUNTIME_RATE_LIMIT: code('runtime', true, 'Wait for the rate limit window to pass'),
  RUNTIME_UNKNOWN: code('runtime', true, 'Retry; inspect the runtime output'),

  AGENT_SCOPE_VIOLATION: code('agent', false, 'Narrow the agent instructions to the allowed scope'),
  AGENT_NO_CHANGES: code('agent', true, 'Provide clearer success criteria'),
  AGENT_INVALID_OUTPUT: code('agent', true, 'Retry with a stricter output instruction'),

  SCOPE_VIOLATION_WRITE: code('scope', false, 'Abort and investigate the scope definition'),
  SCOPE_VIOLATION_READ: code('scope', false, 'Abort and investigate the scope definition'),
  SCOPE_VIOLATION_EXECUTE: code('scope', false, 'Abort and investigate the scope definition'),
  SCOPE_CONFLICT_UNRESOLVED: code('scope', false, 'Serialize the conflicting branches'),

  VERIFICATION_CHECK_FAILED: code('verification', true, 'Let the agent correct its work and retry'),
  VERIFICATION_AGENT_REJECTED: code('verification', true, 'Address the verifier findings'),
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
  USER_THROWN: code('user', false, null),

  POLICY_RETRY_LIMIT_EXCEEDED: code('policy', false, 'Raise the retry limit or fix the underlying failure'),
  POLICY_TIMEOUT_EXCEEDED: code('policy', false, 'Raise the flow timeout'),
  POLICY_RESOURCE_EXHAUSTED: code('policy', false, 'Free resources or raise the quota'),
  POLICY_MAX_STEPS_EXCEEDED: code('policy', false, 'Raise max-steps or check the flow for a runaway loop'),
  POLICY_COMMIT_REJECTED: code('policy', false, 'Give each parallel branch its own result channel'),
} as const satisfies Record<string, CodeInfo>;

export type ErrorCode = keyof typeof ERROR_CODES;

export function isErrorCode(value: string): value is ErrorCode {
  return Object.prototype.hasOwnProperty.call(ERROR_CODES, value);
}

export function codeInfo(errorCode: ErrorCode): CodeInfo {
  return ERROR_CODES[errorCode];
}

const ORIGIN_PATTERN = /^(system|verifier|scope_enforcer|git|user|policy|(runtime|agent|check):[A-Za-z0-9_.-]+)$/;

/** Origins: `system`, `runtime:<name>`, `agent:<name>`, `verifier`, `check:<name>`, `scope_enforcer`, `git`, `user`, `policy`. */
export function isValidOrigin(origin: string): boolean {
  return ORIGIN_PATTERN.test(origin);
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
