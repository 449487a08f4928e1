/**
 * Loads a lazily imported screen, trying again when the chunk fails to load (a server restarting
 * under the window, a dropped connection): `attempts` tries in all, `wait(n)` between them.
 * The last failure is rethrown for the screen's error boundary to show.
 *
 * Chromium remembers a module whose fetch failed and answers every later `import()` of that URL
 * with the same failure, even once the server is back. So a retry imports the chunk's URL (read
 * from the browser's error message) with a `?retry=n` query: a fresh fetch of the same file. Its
 * own imports keep their URLs, so the shared chunks already loaded are not loaded twice. Hence
 * `load` must give the module itself, as a retry does: a caller takes what it needs out of it after.
 */

export type Importer = (url: string) => Promise<unknown>;

// `@vite-ignore`: the URL is only known at run time, from the failure.
const importUrl: Importer = (url) => import(/* @vite-ignore */ url);

/** The chunk's URL in a failed dynamic import's message ("Failed to fetch dynamically imported module: http://…/X-abc.js"). */
export function failedModuleUrl(error: unknown): string | null {
  const text = error instanceof Error ? error.message : String(error);
  const match = /dynamically imported module:\s*(\S+\.js)/i.exec(text);
  return match?.[1] ?? null;
}

export async function retryImport<T>(
  load: () => Promise<T>,
  attempts = 4,
  wait: (attempt: number) => Promise<void> = (attempt) => new Promise((resolve) => setTimeout(resolve, 500 * 2 ** (attempt - 1))),
  reimport: Importer = importUrl,
): Promise<T> {
  let url: string | null = null;
  for (let attempt = 1; ; attempt++) {
    try {
      return url === null ? await load() : ((await reimport(`${url}?retry=${Date.now().toString(36)}-${attempt}`)) as T);
    } catch (error) {
      url ??= failedModuleUrl(error);
      if (attempt >= attempts) throw error;
      await wait(attempt);
    }
  }
}
