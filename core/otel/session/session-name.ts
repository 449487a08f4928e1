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
 * A subagent's name in the Runs list, led by what tells it apart when a narrow column cuts it:
 * its kind when the CLI names one ("general-purpose subagent afbf5f61"); otherwise (a Codex thread
 * has no kind) the word subagent and its id, the CLI's label last ("subagent 01a22529…0000c0de ·
 * Codex CLI"), since a name led by the CLI's label reads as its session's once cut.
 */
export function subagentName(agent: string, spawnedBy: SpawnedBy): string {
  const id = shortAgentId(spawnedBy.agentId);
  return spawnedBy.agentName !== null ? `${spawnedBy.agentName} subagent ${id}` : `subagent ${id} · ${LABEL[agent] ?? agent}`;
}
