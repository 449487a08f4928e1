/** A UUID whose leading digits are a timestamp (versions 1, 6, 7): Codex's conversation and thread ids are version 7. */
const TIME_ORDERED_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[167][0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * An agent's session or thread id as a name shows it: its first eight digits, as the CLIs print
 * them ("7f3c9a2e"). A time-ordered id's start is its clock, so ids made within a minute share it
 * (a Codex session and the threads it spawns do); its last eight digits, which are random, follow:
 * "01a2242e…3f421be2".
 */
export function shortAgentId(id: string): string {
  return TIME_ORDERED_UUID.test(id) ? `${id.slice(0, 8)}…${id.slice(-8)}` : id.slice(0, 8);
}
