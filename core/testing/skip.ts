/**
 * A test or suite that may be skipped says why in its own name, so the reporter's list of skipped
 * tests reads as a list of conditions ("… (skipped: no PostgreSQL server in …)"). `reason` is
 * empty or null when the test runs; its name is then the plain title.
 */
export function skipTitle(title: string, reason: string | null | undefined): string {
  return reason ? `${title} (skipped: ${reason})` : title;
}
