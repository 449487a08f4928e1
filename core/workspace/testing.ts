import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/**
 * Real git repositories for tests, isolated from the machine's git configuration (its global
 * identity, hooks, default branch), and a fake coding agent: a shell script that edits files in
 * its working directory as the prompt tells it, like spec-runner's fake CLI.
 */

export interface TestRepo {
  root: string;
  /** Environment for git: an empty global config, no system config. */
  gitEnv: Record<string, string>;
  git: (...args: string[]) => string;
}

function isolatedGitEnv(dir: string): Record<string, string> {
  const config = join(dir, 'gitconfig');
  writeFileSync(config, '');
  return { GIT_CONFIG_GLOBAL: config, GIT_CONFIG_NOSYSTEM: '1' };
}

/** `makeDir` makes its temp folder: a test passes its own so the folder is removed with the test's. */
export function makeRepo(files: Record<string, string>, makeDir: (prefix: string) => string = (prefix) => mkdtempSync(join(tmpdir(), prefix))): TestRepo {
  const dir = makeDir('hivewatch-repo-');
  const root = join(dir, 'repo');
  mkdirSync(root);
  const gitEnv = isolatedGitEnv(dir);
  const git = (...args: string[]): string =>
    execFileSync('git', args, {
      cwd: root,
      env: {
        ...process.env,
        ...gitEnv,
        GIT_AUTHOR_NAME: 'Test',
        GIT_AUTHOR_EMAIL: 't@example.com',
        GIT_COMMITTER_NAME: 'Test',
        GIT_COMMITTER_EMAIL: 't@example.com',
      },
      encoding: 'utf8',
    }).trim();
  git('init', '--quiet', '--initial-branch=main');
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  git('add', '--all');
  git('commit', '--quiet', '-m', 'initial');
  return { root, gitEnv, git };
}

/**
 * A fake coder: its prompt is a list of `;`-separated instructions, `write PATH TEXT` or `block`
 * (wait while the file $BLOCK_FILE exists), each optionally
 * prefixed `attemptN` to apply only on attempt N. It reads the prompt from $HIVEWATCH_PROMPT,
 * as a real agent CLI behind a script would, and logs every prompt it was given to $PROMPT_LOG
 * (one block per attempt).
 */
const FAKE_CODER = `#!/bin/sh
printf '%s\\n=====\\n' "$HIVEWATCH_PROMPT" >> "$PROMPT_LOG"
printf '%s\\n' "$HIVEWATCH_PROMPT" | tr ';' '\\n' | while IFS= read -r line; do
  set -- $line
  case "$1" in
    attempt*) [ "$1" = "attempt$HIVEWATCH_ATTEMPT" ] || continue; shift ;;
  esac
  if [ "$1" = write ]; then mkdir -p "$(dirname "$2")"; printf '%s\\n' "$3" > "$2"; fi
  if [ "$1" = block ]; then while [ -e "$BLOCK_FILE" ]; do sleep 0.1; done; fi
done
echo "edited"
`;

export function writeFakeCoder(dir: string): { script: string; promptLog: string } {
  const script = join(dir, 'coder.sh');
  writeFileSync(script, FAKE_CODER, { mode: 0o755 });
  return { script, promptLog: join(dir, 'prompts.log') };
}
