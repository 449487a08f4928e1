/**
 * Loads a lazily imported screen, trying again when the chunk fails to load (a server restarting
 * under the window, a dropped connection): `attempts` tries in all, `wait(n)` between them.
 * The last failure is rethrown for the screen's error boundary to show.
 */
export async function retryImport<T>(
  load: () => Promise<T>,
  attempts = 4,
  wait: (attempt: number) => Promise<void> = (attempt) => new Promise((resolve) => setTimeout(resolve, 500 * 2 ** (attempt - 1))),
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await load();
    } catch (error) {
      if (attempt >= attempts) throw error;
      await wait(attempt);
    }
  }
}
