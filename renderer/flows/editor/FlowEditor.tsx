import { useEffect, useRef, useState, type CSSProperties } from 'react';
import { retryImport } from '../../app/retry-import.js';
import { ErrorState, Loading } from '../../components/states.js';
import { useDarkMode } from '../../lib/theme.js';
import { useRetryWhenRecovered } from '../../lib/use-retry-when-recovered.js';
import { syntaxColorVars } from '../syntax-colors.js';
import type { CheckedSource, FlowEditorHandle, mountFlowEditor } from './flow-editor-view.js';

export type { FlowEditorHandle };

interface EditorModule {
  mountFlowEditor: typeof mountFlowEditor;
}

let editorModule: Promise<EditorModule> | null = null;

/** The editor's chunk, asked for once; a failed load is forgotten so "Try again" asks anew. */
function loadEditor(): Promise<EditorModule> {
  editorModule ??= retryImport(() => import('./flow-editor-view.js')).catch((error: unknown) => {
    editorModule = null;
    throw error;
  });
  return editorModule;
}

export interface FlowEditorProps {
  /** The text shown: the file, or the draft the operator is typing (then it is what onChange last reported). */
  value: string;
  readOnly: boolean;
  /** The editor's accessible name; the heading above it says the same. */
  label: string;
  /** The service's check of some text: shown when it is the text in the editor. */
  checked: CheckedSource;
  onChange: (value: string) => void;
  /** The editor's handle once it is mounted (to reveal a diagnostic's place), null when it goes. */
  onReady?: (handle: FlowEditorHandle | null) => void;
}

/**
 * The flow's text in a real editor (line numbers, the checker's colours and diagnostics in
 * place), loaded on demand. It lives in a shadow root: CodeMirror styles itself with a style
 * sheet it builds at run time, which the window's content security policy allows only as an
 * adopted sheet of a shadow root, never as a <style> element.
 */
export function FlowEditor({ value, readOnly, label, checked, onChange, onReady }: FlowEditorProps) {
  const host = useRef<HTMLDivElement>(null);
  const [editor, setEditor] = useState<FlowEditorHandle | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [attempt, setAttempt] = useState(0);
  const dark = useDarkMode();
  // The latest props, read by the editor's callbacks and its first mount.
  const latest = useRef({ value, readOnly, label, dark, onChange, onReady });
  latest.current = { value, readOnly, label, dark, onChange, onReady };

  useEffect(() => {
    let mounted = true;
    let handle: FlowEditorHandle | null = null;
    loadEditor().then(
      (module) => {
        const el = host.current;
        if (!mounted || !el) return;
        const root = el.shadowRoot ?? el.attachShadow({ mode: 'open' });
        const now = latest.current;
        handle = module.mountFlowEditor({
          root,
          doc: now.value,
          readOnly: now.readOnly,
          label: now.label,
          dark: now.dark,
          onChange: (doc) => latest.current.onChange(doc),
        });
        setEditor(handle);
        now.onReady?.(handle);
      },
      (error: unknown) => mounted && setFailure(error instanceof Error ? error.message : String(error)),
    );
    return () => {
      mounted = false;
      handle?.destroy();
      latest.current.onReady?.(null);
      setEditor(null);
    };
  }, [attempt]);

  useEffect(() => editor?.setDoc(value), [editor, value]);
  useEffect(() => editor?.setReadOnly(readOnly, label), [editor, readOnly, label]);
  useEffect(() => editor?.setDark(dark), [editor, dark]);
  // After setDoc: a check of the text just shown applies to it.
  useEffect(() => editor?.setChecked(checked), [editor, checked, value]);

  const retry = () => {
    setFailure(null);
    setAttempt((n) => n + 1);
  };
  useRetryWhenRecovered(failure !== null, retry);
  if (failure) return <ErrorState title="Could not load the editor" error={failure} onRetry={retry} />;
  return (
    <div className="flow-editor-frame">
      {!editor && <Loading what="the editor" />}
      <div ref={host} className="flow-editor-host" data-testid="flow-editor" style={syntaxColorVars(dark ? 'dark' : 'light') as CSSProperties} />
    </div>
  );
}
