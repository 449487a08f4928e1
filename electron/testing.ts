import type { IpcEventLike, IpcMainLike, SenderLike } from './ipc.js';
import type { IpcRendererLike } from './preload.cjs';

/**
 * An in-memory stand-in for Electron's IPC pair (ipcMain.handle / ipcRenderer.invoke, and
 * webContents.send / ipcRenderer.on), for tests without an Electron binary. Payloads go through
 * structuredClone both ways, as Electron serialises them, so anything IPC could not carry fails
 * here too; messages to the renderer arrive on a later turn, in order.
 */
export class InMemoryIpc implements IpcMainLike, IpcRendererLike {
  private readonly handlers = new Map<string, (event: IpcEventLike, ...args: unknown[]) => unknown>();
  private readonly listeners = new Map<string, Set<(event: unknown, message: unknown) => void>>();
  private destroyedListeners: (() => void)[] = [];
  frameUrl = 'app://hivewatch/index.html';
  destroyed = false;

  readonly sender: SenderLike = {
    id: 1,
    send: (channel, message) => {
      const copy = structuredClone(message);
      setImmediate(() => {
        for (const listener of this.listeners.get(channel) ?? []) listener({}, copy);
      });
    },
    isDestroyed: () => this.destroyed,
    once: (_event, listener) => this.destroyedListeners.push(listener),
  };

  handle(channel: string, listener: (event: IpcEventLike, ...args: unknown[]) => unknown): void {
    if (this.handlers.has(channel)) throw new Error(`Attempted to register a second handler for '${channel}'`);
    this.handlers.set(channel, listener);
  }

  removeHandler(channel: string): void {
    this.handlers.delete(channel);
  }

  async invoke(channel: string, ...args: unknown[]): Promise<unknown> {
    const handler = this.handlers.get(channel);
    if (!handler) throw new Error(`Error invoking remote method '${channel}': Error: No handler registered for '${channel}'`);
    const result = await handler({ sender: this.sender, senderFrame: { url: this.frameUrl } }, ...structuredClone(args));
    return structuredClone(result);
  }

  on(channel: string, listener: (event: unknown, message: unknown) => void): void {
    let set = this.listeners.get(channel);
    if (!set) this.listeners.set(channel, (set = new Set()));
    set.add(listener);
  }

  removeListener(channel: string, listener: (event: unknown, message: unknown) => void): void {
    this.listeners.get(channel)?.delete(listener);
  }

  listenerCount(channel: string): number {
    return this.listeners.get(channel)?.size ?? 0;
  }

  /** The renderer went away (window closed / reloaded). */
  destroy(): void {
    this.destroyed = true;
    for (const listener of this.destroyedListeners.splice(0)) listener();
  }
}
