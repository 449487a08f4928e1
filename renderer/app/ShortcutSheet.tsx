import { Dialog } from '../components/Dialog.js';
import { SHORTCUTS } from './keyboard.js';

/** `?`: every keyboard shortcut on one sheet. */
export function ShortcutSheet({ onClose }: { onClose: () => void }) {
  return (
    <Dialog title="Keyboard shortcuts" onClose={onClose} className="shortcut-sheet" labelledBy="shortcuts-title">
      <table className="shortcuts">
        <tbody>
          {SHORTCUTS.map((s) => (
            <tr key={s.what}>
              <td className="keys">
                {s.keys.map((k, i) => (
                  <span key={k}>
                    {i > 0 && (s.keys[0] === 'g' ? ' then ' : ' / ')}
                    <kbd>{k}</kbd>
                  </span>
                ))}
              </td>
              <td>{s.what}</td>
              <td className="muted">{s.where}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="muted small-print">Shortcuts pause while you type in a field. Press Esc to close.</p>
      <div className="dialog-actions">
        <button type="button" className="primary" data-autofocus onClick={onClose}>
          Got it
        </button>
      </div>
    </Dialog>
  );
}
