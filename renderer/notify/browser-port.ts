import type { AlertPermission, NotificationPort } from './failure-alerts.js';

/** The browser Notification API as a NotificationPort; null where the browser has none. */
export function browserNotifications(win: Window & typeof globalThis = window): NotificationPort | null {
  if (!('Notification' in win)) return null;
  const N = win.Notification;
  return {
    permission: () => N.permission as AlertPermission,
    request: async () => (await N.requestPermission()) as AlertPermission,
    show(note, onClick) {
      const notification = new N(note.title, { body: note.body, tag: note.tag });
      notification.onclick = () => {
        win.focus();
        onClick();
        notification.close();
      };
    },
  };
}
