import { HivewatchError } from '../../base/errors/hivewatch-error.js';
import { validateRetryPolicy } from '../../base/errors/retry.js';
import type { FlowPlan } from '../../flow/plan/plan.js';
import { resolveAgent, retryPolicyFor } from '../task/agents.js';

/**
 * Rule 3 and the default agent: everything that can be known wrong before anything runs. The
 * first problem in ordinal order, or null. A run that has one fails before step 0.
 */
export function problemBeforeStepZero(plan: FlowPlan, defaultAgent: string | null): HivewatchError | null {
  const agentName = (ordinal: number): string | null => plan.sessions[ordinal]?.agent ?? defaultAgent ?? null;
  for (const session of plan.sessions) {
    const name = agentName(session.ordinal);
    const agent = name === null ? null : resolveAgent(plan, name);
    const message = validateRetryPolicy(retryPolicyFor(session, agent));
    if (message !== null) {
      const whose = session.retryExplicit || agent === null ? '' : ` (the retry policy of agent "${agent.name}")`;
      return new HivewatchError('USER_INVALID_FLOW', {
        message: `${plan.file}:${session.pos.line}:${session.pos.column}: session #${session.ordinal}${whose}: ${message}`,
        origin: 'user',
        context: { ordinal: session.ordinal, line: session.pos.line, column: session.pos.column },
      });
    }
  }
  for (const session of plan.sessions) {
    const name = agentName(session.ordinal);
    if (name === null) {
      return new HivewatchError('USER_MISSING_DEPENDENCY', {
        message: `session #${session.ordinal} ("${session.name}") names no agent and no default agent is set; pass --agent NAME or set HIVEWATCH_AGENT (a flow agent or one of fake, claude-code, codex-cli)`,
        origin: 'user',
        context: { ordinal: session.ordinal },
      });
    }
    if (resolveAgent(plan, name) === null) {
      return new HivewatchError('USER_MISSING_DEPENDENCY', {
        message: `session #${session.ordinal} ("${session.name}") uses agent "${name}", which the flow does not define and is not a built-in preset`,
        origin: 'user',
        context: { ordinal: session.ordinal, agent: name },
      });
    }
  }
  return null;
}
