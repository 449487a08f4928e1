/** A timer the sink can end early (on close), and that keeps the process alive while it runs. */
export class Timers {
  private readonly wakers = new Set<() => void>();

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = (): void => {
        clearTimeout(timer);
        this.wakers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.wakers.add(wake);
    });
  }

  wakeAll(): void {
    for (const wake of [...this.wakers]) wake();
  }
}
