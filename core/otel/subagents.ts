import type { SpawnedBy } from '../base/events.js';
import { own, type AttributeValue, type TelemetryRecord } from './receive/decode.js';
import { Bounded, eventName, str, type SessionRef } from './mapping.js';
import { externalRunId } from './session/session-run-id.js';

/**
 * Which agent of a session a record comes from (pure; docs/otel.md "Subagents"). A subagent's
 * records become a run of their own, a child of the run of the agent that started it, so each
 * subagent has its own tasks, attempts, errors, status, tokens and cost, and no request is
 * counted in two runs.
 *
 * - Claude Code sends every agent's records under the session's one `session.id`; a subagent's
 *   carry `agent_id` (and `parent_agent_id` when a subagent started it), on log records and on
 *   the traces beta's spans. Its run's session is `<session.id>/agent/<agent_id>`.
 * - Codex gives each subagent thread a conversation of its own. Its log record
 *   `codex.agent_communication` {kind: spawn, sender_thread_id, receiver_thread_id} (no
 *   conversation.id: it names both threads) says which thread spawned which; it may come before
 *   or after the spawned thread's own records, so it links the thread's run either at its start
 *   or later (`externalRunSpawned`). A thread's `session_source`
 *   `subagent_thread_spawn_<parent thread id>…` names its parent too, when a record carries it.
 */

interface SubagentRef {
  /** Claude Code's `agent_id`; Codex's thread (conversation) id. */
  agentId: string;
  /** The session the run of the agent that started this one is keyed by. */
  parentSessionId: string;
  /** The subagent's kind as the CLI names it (`general-purpose`, `Explore`, a Codex role), when it does. */
  name: string | null;
}

/** Claude Code's event that a subagent finished: its run ends then, not a quiet period later. */
const SUBAGENT_COMPLETED = 'claude_code.subagent_completed';

const CODEX_SPAWN = /^subagent_thread_spawn_([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})/i;
/** Codex's log record of a message between two of its threads; `kind: spawn` is the one that started the receiver. */
const CODEX_COMMUNICATION = 'codex.agent_communication';
const CODEX_THREAD_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The record's own attribute, else its span's (a span event carries the span's `agent_id`). */
function attribute(record: TelemetryRecord, key: string): AttributeValue | undefined {
  return own(record.attributes, key) ?? (record.spanAttributes ? own(record.spanAttributes, key) : undefined);
}

/** `agent:builtin:general-purpose` (Claude Code's `query_source` of a subagent's request) names its kind last. */
function kindOfQuerySource(value: string | null): string | null {
  if (value === null || !/^agent[:.]/.test(value)) return null;
  const last = value.split(/[:.]/).pop() ?? '';
  return last === '' ? null : last;
}

const CLAUDE_AGENT_SEGMENT = '/agent/';

/** The Claude Code subagent session of `sessionId` an agent id names. */
const claudeAgentSession = (sessionId: string, agentId: string): string => `${sessionId}${CLAUDE_AGENT_SEGMENT}${agentId}`;

/** A Claude Code subagent's session key (its session's `session.id` is a UUID, never containing the segment). */
export const isClaudeSubagentSession = (sessionId: string): boolean => sessionId.includes(CLAUDE_AGENT_SEGMENT);

function subagentOf(record: TelemetryRecord, session: SessionRef, bounded: Bounded): SubagentRef | null {
  const agentId = bounded.id(str(attribute(record, 'agent_id')), 'attributes.agent_id');
  if (agentId !== null && session.agent === 'claude-code') {
    const parentAgent = bounded.id(str(attribute(record, 'parent_agent_id')), 'attributes.parent_agent_id');
    const name =
      str(attribute(record, 'agent.name')) ??
      str(attribute(record, 'agent_type')) ??
      kindOfQuerySource(str(attribute(record, 'query_source')) ?? str(attribute(record, 'query_source_safe')));
    return {
      agentId,
      parentSessionId: parentAgent === null || parentAgent === agentId ? session.sessionId : claudeAgentSession(session.sessionId, parentAgent),
      name: bounded.text(name, 'attributes.agent.name', 200),
    };
  }
  const spawn = CODEX_SPAWN.exec(str(attribute(record, 'session_source')) ?? '');
  if (spawn && session.agent === 'codex-cli' && spawn[1] !== session.sessionId) {
    const name = str(attribute(record, 'agent_role')) ?? str(attribute(record, 'agent.name'));
    return { agentId: session.sessionId, parentSessionId: (spawn[1] as string).toLowerCase(), name: bounded.text(name, 'attributes.agent_role', 200) };
  }
  return null;
}

/** The thread a Codex spawn record started and the thread that started it, when `record` is one. */
export function codexSpawnOf(record: TelemetryRecord): { childThreadId: string; parentThreadId: string } | null {
  if (eventName(record) !== CODEX_COMMUNICATION || str(own(record.attributes, 'kind')) !== 'spawn') return null;
  const child = str(own(record.attributes, 'receiver_thread_id')) ?? '';
  const parent = str(own(record.attributes, 'sender_thread_id')) ?? '';
  if (!CODEX_THREAD_ID.test(child) || !CODEX_THREAD_ID.test(parent) || child === parent) return null;
  return { childThreadId: child, parentThreadId: parent };
}

/**
 * The spawned thread's session, for Codex's spawn record: the record is the child's (it joins
 * the child's run, which it links, `linksLate`, whether or not the run has started).
 */
function codexSpawnedSession(session: SessionRef, record: TelemetryRecord): SessionRef | null {
  if (session.agent !== 'codex-cli') return null;
  const spawn = codexSpawnOf(record);
  if (spawn === null) return null;
  const { anonymous: _named, ...rest } = session;
  const spawnedBy: SpawnedBy = { runId: externalRunId({ ...session, sessionId: spawn.parentThreadId }), agentId: spawn.childThreadId, agentName: null };
  return { ...rest, sessionId: spawn.childThreadId, spawnedBy, linksLate: true };
}

/**
 * The spawning thread's session, for Codex's metric point of a thread it started (metrics/codex.ts):
 * the point names that thread only.
 */
function codexSpawnerSession(session: SessionRef, record: TelemetryRecord): SessionRef | null {
  if (record.signal !== 'metrics' || session.agent !== 'codex-cli') return null;
  const spawn = CODEX_SPAWN.exec(str(own(record.attributes, 'session_source')) ?? '');
  if (!spawn) return null;
  const { anonymous: _named, ...rest } = session;
  return { ...rest, sessionId: (spawn[1] as string).toLowerCase() };
}

/**
 * The session a record belongs to once its agent is known: the session itself for the main
 * agent, else the subagent's, with the run of the agent that started it.
 */
export function agentSessionOf(session: SessionRef, record: TelemetryRecord): SessionRef {
  const spawned = codexSpawnedSession(session, record);
  if (spawned !== null) return spawned;
  const spawner = codexSpawnerSession(session, record);
  if (spawner !== null) return spawner;
  const bounded = new Bounded();
  const sub = subagentOf(record, session, bounded);
  if (sub === null) return session;
  const sessionId = session.agent === 'claude-code' ? claudeAgentSession(session.sessionId, sub.agentId) : session.sessionId;
  const spawnedBy: SpawnedBy = { runId: externalRunId({ ...session, sessionId: sub.parentSessionId }), agentId: sub.agentId, agentName: sub.name };
  return { ...session, sessionId, spawnedBy, adjustments: [...session.adjustments, ...bounded.adjustments] };
}

/** The record that says a subagent finished (Claude Code's `subagent_completed`), if one of `records` does. */
export function completionOf(records: readonly TelemetryRecord[]): TelemetryRecord | null {
  return records.find((record) => eventName(record) === SUBAGENT_COMPLETED) ?? null;
}
