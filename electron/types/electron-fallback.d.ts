/**
 * The part of Electron's API that electron/main.ts uses, for compiling when the optional
 * `electron` package is not installed at all (npm drops an optional dependency whose install
 * script failed, e.g. when Electron's binary cannot be downloaded). tsconfig.build.json maps
 * `electron` to the real package's types first and to this file only as a fallback, so
 * `npm install` (prepare → build) and `npm test` never depend on Electron being there. With the
 * real package present these declarations are unused.
 */

export interface PreventableEvent {
  preventDefault(): void;
}

export interface Rectangle {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface WebContents {
  readonly id: number;
  send(channel: string, ...args: unknown[]): void;
  isDestroyed(): boolean;
  once(event: 'destroyed', listener: () => void): this;
  on(event: 'will-navigate' | 'will-redirect', listener: (event: PreventableEvent, url: string) => void): this;
  on(event: 'will-attach-webview', listener: (event: PreventableEvent) => void): this;
  setWindowOpenHandler(handler: (details: { url: string }) => { action: 'deny' | 'allow' }): void;
}

export interface IpcMainInvokeEvent {
  sender: WebContents;
  senderFrame: { url: string } | null;
}

export class BrowserWindow {
  constructor(options?: object);
  readonly webContents: WebContents;
  loadURL(url: string): Promise<void>;
  show(): void;
  focus(): void;
  maximize(): void;
  restore(): void;
  isMinimized(): boolean;
  isMaximized(): boolean;
  getNormalBounds(): Rectangle;
  once(event: 'ready-to-show', listener: () => void): this;
  on(event: 'close' | 'closed', listener: () => void): this;
}

export class Notification {
  static isSupported(): boolean;
  constructor(options: { title: string; body: string });
  on(event: 'click' | 'close', listener: () => void): this;
  show(): void;
  close(): void;
}

export const app: {
  readonly isPackaged: boolean;
  whenReady(): Promise<void>;
  getPath(name: 'userData'): string;
  requestSingleInstanceLock(): boolean;
  quit(): void;
  exit(code?: number): void;
  on(event: 'second-instance' | 'window-all-closed', listener: () => void): void;
  on(event: 'before-quit', listener: (event: PreventableEvent) => void): void;
  on(event: 'web-contents-created', listener: (event: unknown, contents: WebContents) => void): void;
};

export const dialog: {
  showErrorBox(title: string, content: string): void;
};

export const ipcMain: {
  handle(channel: string, listener: (event: IpcMainInvokeEvent, ...args: unknown[]) => unknown): void;
  removeHandler(channel: string): void;
};

export const protocol: {
  registerSchemesAsPrivileged(schemes: { scheme: string; privileges: Record<string, boolean> }[]): void;
  handle(scheme: string, handler: (request: Request) => Response | Promise<Response>): void;
};

export const screen: {
  getAllDisplays(): { workArea: Rectangle }[];
};

type Headers = Record<string, string[] | string>;

export const session: {
  defaultSession: {
    webRequest: {
      onHeadersReceived(
        listener: (details: { responseHeaders?: Headers }, callback: (response: { responseHeaders?: Record<string, string[]> }) => void) => void,
      ): void;
    };
    setPermissionRequestHandler(handler: (webContents: WebContents, permission: string, callback: (granted: boolean) => void) => void): void;
    setPermissionCheckHandler(handler: () => boolean): void;
  };
};

/** Preload side (electron/preload.cts). */
export const contextBridge: {
  exposeInMainWorld(apiKey: string, api: unknown): void;
};

export const ipcRenderer: {
  invoke(channel: string, ...args: unknown[]): Promise<unknown>;
  on(channel: string, listener: (event: unknown, ...args: unknown[]) => void): unknown;
  removeListener(channel: string, listener: (event: unknown, ...args: unknown[]) => void): unknown;
};
