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
