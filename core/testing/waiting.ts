/**
 * "Not yet", for `vi.waitFor`: it retries while its callback throws and, when its timeout passes,
 * fails with the last error, which then names what the test was waiting for. Written as
 * `vi.waitFor(() => find() ?? waiting('the run in backoff'), { timeout })`.
 */
export function waiting(what: string): never {
  throw new Error(`still waiting for ${what}`);
}
