import type { SpawnedBy } from '../base/events.js';

const LABEL: Record<string, string> = { 'claude-code': 'Claude Code', 'codex-cli': 'Codex CLI' };
/** The Claude Code desktop app's Code tab reports as `claude-code-desktop`: the same events, its own name. */
const DESKTOP_SERVICE = 'claude-code-desktop';

/** A UUID whose leading digits are a timestamp (versions 1, 6, 7): Codex's conversation ids are version 7. */
const TIME_ORDERED_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[167][0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The session's name in the Runs list: the CLI's label and the start of its session id, which
 * the CLI shows too ("Claude Code session 7f3c9a2e"). A time-ordered id's start is its clock —
 * sessions started within a minute share it — so it is followed by the id's last eight digits,
 * which are random: "Codex CLI session 01a2242e…3f421be2".
 */
export function sessionName(agent: string, sessionId: string, service: string | null = null): string {
  const label = agent === 'claude-code' && service === DESKTOP_SERVICE ? 'Claude Code desktop' : (LABEL[agent] ?? agent);
  return `${label} session ${shortId(sessionId)}`;
}

const shortId = (id: string): string => (TIME_ORDERED_UUID.test(id) ? `${id.slice(0, 8)}…${id.slice(-8)}` : id.slice(0, 8));

/**
 * A subagent's name in the Runs list: its kind first (what a narrow column keeps) and the start of
 * its id ("general-purpose subagent afbf5f61"; a Codex thread's as its session's); the CLI's label when the kind is not named.
 */
export function subagentName(agent: string, spawnedBy: SpawnedBy): string {
  return `${spawnedBy.agentName ?? LABEL[agent] ?? agent} subagent ${shortId(spawnedBy.agentId)}`;
}
