import { createHash } from 'node:crypto';
import { sessionKeyOf, type SessionRef } from '../mapping.js';

/**
 * The run id of a session: its agent and a digest of its key, so the same session always maps
 * to the same run, and a subagent can name its parent's run before that run's records arrive.
 */
export function externalRunId(session: Pick<SessionRef, 'agent' | 'origin' | 'sessionId'>): string {
  const digest = createHash('sha256').update(sessionKeyOf(session)).digest('hex').slice(0, 16);
  return `ext-${session.agent}-${digest}`;
}
