import type { HivewatchService } from './service.js';

/**
 * `--demo`: keeps a stream of example runs going so a freshly opened window is alive. Every
 * `intervalMs` it starts the next bundled example (round robin, virtual clock, so backoffs take
 * no real time) unless `maxActive` of its runs are still going.
 */

export interface DemoOptions {
  intervalMs?: number;
  maxActive?: number;
  log?: (message: string) => void;
}

export function startDemo(service: HivewatchService, options: DemoOptions = {}): () => void {
  const intervalMs = options.intervalMs ?? 4_000;
  const maxActive = options.maxActive ?? 3;
  const mine = new Set<string>();
  let next = 0;
  let stopped = false;
  let busy = false;

  const tick = async (): Promise<void> => {
    if (stopped || busy) return;
    busy = true;
    try {
      const active = new Set(service.activeRunIds());
      for (const id of mine) if (!active.has(id)) mine.delete(id);
      if (mine.size >= maxActive) return;
      const examples = (await service.listFlows()).filter((f) => f.bundled && f.ok);
      if (examples.length === 0 || stopped) return;
      const flow = examples[next++ % examples.length] as (typeof examples)[number];
      const { runId } = await service.startRun({ flow: flow.id, virtualClock: true });
      mine.add(runId);
    } catch (error) {
      options.log?.(`demo: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      busy = false;
    }
  };

  void tick();
  const timer = setInterval(() => void tick(), intervalMs);
  timer.unref();
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}
