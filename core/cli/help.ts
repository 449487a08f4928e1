/**
 * `hivewatch COMMAND --help` (or `-h`): the lines of the full help that are about COMMAND, so a
 * newcomer who asks a command for help gets its usage instead of "unknown option --help". A usage
 * entry starts with two spaces and `hivewatch NAME` (or `hivewatch a|b|c`); the lines indented
 * deeper under it are its continuation.
 */

const ENTRY = /^ {2}hivewatch ([a-z|-]+)/;

export function wantsHelp(args: readonly string[]): boolean {
  const end = args.indexOf('--');
  return (end === -1 ? args : args.slice(0, end)).some((a) => a === '--help' || a === '-h');
}

export function commandHelp(help: string, name: string): string {
  const lines = help.split('\n');
  const picked: string[] = [];
  let inEntry = false;
  for (const line of lines) {
    const entry = ENTRY.exec(line);
    if (entry) inEntry = (entry[1] as string).split('|').includes(name);
    else if (!line.startsWith('   ')) inEntry = false;
    if (inEntry) picked.push(line);
  }
  return `Usage:\n${picked.join('\n')}\n\nEvery command: hivewatch help\n`;
}
