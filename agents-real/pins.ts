/**
 * The vendor CLIs the real-agent suites run, pinned. docs/real-agents.md records what each of
 * these versions does; agents-real/fixtures/ holds what they sent. Changing a version here makes
 * agents-real/recording/fixtures.test.ts fail until the fixtures are recorded again with it
 * (`npm run record-cli-fixtures`), and the live suites name every format that moved.
 */

export type CliName = 'claude-code' | 'codex-cli';

export interface CliPin {
  name: CliName;
  /** The npm package users install. */
  pkg: string;
  version: string;
  /** The command the package puts in node_modules/.bin. */
  bin: string;
  /** Where else in the install the same program is (tried when the .bin command fails its version check). */
  alternates?: (platform: string, arch: string) => string[];
}

export const CLI_PINS: Record<CliName, CliPin> = {
  'claude-code': {
    name: 'claude-code',
    pkg: '@anthropic-ai/claude-code',
    version: '2.1.332',
    bin: 'claude',
    // The native binary itself; the package's postinstall links it over bin/claude.exe.
    alternates: (platform, arch) => [`node_modules/@anthropic-ai/claude-code-${platform}-${arch}/claude`],
  },
  'codex-cli': { name: 'codex-cli', pkg: '@openai/codex', version: '0.171.0', bin: 'codex' },
};
