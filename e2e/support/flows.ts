/** Flows the journeys put in the operator's folder (run on the fake runtime, offline). */

/** Two long sessions in one step: something to cancel mid-step. */
export const SLOW_PARALLEL = `# Two long sessions in parallel: cancel the run while they work.
agent assistant:
  runtime: "fake"

parallel:
  build = session: assistant
    prompt: "Build the release image"
    simulate: "slow:60s"
  migrate = session: assistant
    prompt: "Run the database migrations"
    simulate: "slow:60s"
`;

/** A quick first step, then a slower one: a host killed during step 2 resumes after step 1. */
export const TWO_STEPS = `# Step 1 is quick; step 2 takes a few seconds.
agent assistant:
  runtime: "fake"

let plan = session: assistant
  prompt: "Plan the release"
  simulate: "ok:the plan"

session: assistant
  prompt: "Ship it: {plan}"
  simulate: "slow:3s"
`;

/**
 * One task waits ten minutes in backoff while another's agent works (a real process, journaled
 * as `attemptProcess`): what a host killed mid-run leaves behind. The command
 * runtime, as the agent CLIs' presets use it.
 */
export const BACKOFF_AND_WORK = `# A rate-limited call waits 10 minutes while a long job runs.
agent api:
  command: "sh -c 'echo rate limited: 429 Too Many Requests >&2; exit 1'"
agent job:
  command: "sleep 300"

parallel:
  api = session: api
    prompt: "Call the rate-limited API"
    retry: 2
    backoff: "fixed"
    delay: "10m"
  job = session: job
    prompt: "A long job"
`;
