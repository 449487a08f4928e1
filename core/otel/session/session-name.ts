import type { SpawnedBy } from '../../base/events.js';
import { shortAgentId } from '../../common/agent-ids.js';

const LABEL: Record<string, string> = { 'claude-code': 'Claude Code', 'codex-cli': 'Codex CLI' };
/** The Claude Code desktop app's Code tab reports as `claude-code-desktop`: the same events, its own name. */
const DESKTOP_SERVICE = 'claude-code-desktop';

/**
 * The session's name in the Runs list: the CLI's label and its session id as `shortAgentId`
 * shows it ("Claude Code session 7f3c9a2e", "Codex CLI session 01a2242e…3f421be2").
 */
export function sessionName(agent: string, sessionId: string, service: string | null = null): string {
  const label = agent === 'claude-code' && service === DESKTOP_SERVICE ? 'Claude Code desktop' : (LABEL[agent] ?? agent);
  return `${label} session ${shortAgentId(sessionId)}`;
}

/**
 * A subagent's name in the Runs list: its kind first (what a narrow column keeps) and the start of
 * its id ("general-purpose subagent afbf5f61"; a Codex thread's as its session's); the CLI's label when the kind is not named.
 */
export function subagentName(agent: string, spawnedBy: SpawnedBy): string {
  return `${spawnedBy.agentName ?? LABEL[agent] ?? agent} subagent ${shortAgentId(spawnedBy.agentId)}`;
}
