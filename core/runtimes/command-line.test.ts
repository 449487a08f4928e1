import { describe, expect, it } from 'vitest';
import { HivewatchError } from '../base/errors/hivewatch-error.js';
import { CommandLineError, commandValues, shellQuote, shellScriptFromTemplate, splitCommandTemplate, templateFromText } from './command-line.js';

const split = (text: string, prompt = 'P', model: string | null = 'M'): string[] => splitCommandTemplate(templateFromText(text), commandValues(prompt, model));
const script = (text: string): string => shellScriptFromTemplate(templateFromText(text));
const HOSTILE = `it's "quoted"; rm -rf ~ $(touch /tmp/pwned) \`id\` && echo | cat > x \\ {prompt}`;

// The splitter alone: which templates may run at all is core/flow/plan/command-safety.ts's to say.
describe('splitCommandTemplate', () => {
  it('splits on whitespace and substitutes {prompt} and {model}', () => {
    expect(split("printf '%s\\n' {prompt}  {model}")).toEqual(['printf', '%s\\n', 'P', 'M']);
  });

  it('understands single quotes, double quotes and backslashes like sh', () => {
    expect(split(`a 'b c' "d \\"e\\" \\$f \\x" g\\ h 'i'"j" \\'k`)).toEqual(['a', 'b c', 'd "e" $f \\x', 'g h', 'ij', "'k"]);
  });

  it('keeps a hostile prompt as exactly one argv element', () => {
    expect(split('tool {prompt} --end', HOSTILE)).toEqual(['tool', HOSTILE, '--end']);
    expect(split('tool "{prompt}"', HOSTILE)).toEqual(['tool', HOSTILE]);
    expect(split("tool '{prompt}'", HOSTILE)).toEqual(['tool', HOSTILE]);
  });

  it('glues a value to the text around it within one word', () => {
    expect(split('tool --prompt={prompt} --model={model}', 'a b')).toEqual(['tool', '--prompt=a b', '--model=M']);
  });

  it('keeps an empty prompt as an (empty) argument', () => {
    expect(split('tool {prompt} x', '')).toEqual(['tool', '', 'x']);
    expect(split("tool '' x")).toEqual(['tool', '', 'x']);
  });

  it('rejects unknown names, an unset model, bad quoting', () => {
    expect(() => split('tool {run}')).toThrow(new CommandLineError('unknown name {run} in command: only {prompt} and {model} can be used'));
    expect(() => split('tool --model {model}', 'P', null)).toThrow(new CommandLineError('command uses {model} but the agent sets no model'));
    expect(() => split('tool "abc')).toThrow(new CommandLineError('unterminated double quote in command'));
    expect(() => split("tool 'abc")).toThrow(new CommandLineError('unterminated single quote in command'));
    expect(() => split('tool \\')).toThrow(new CommandLineError('a backslash at the end of a command escapes nothing'));
  });

  it('throws a configuration error of the taxonomy, bad quoting included', () => {
    for (const text of ['tool {run}', 'tool "abc']) {
      const thrown = (() => {
        try {
          split(text);
        } catch (error) {
          return error;
        }
        return null;
      })();
      expect(thrown).toBeInstanceOf(CommandLineError);
      expect(thrown).toBeInstanceOf(HivewatchError);
      expect(thrown).toMatchObject({ code: 'USER_INVALID_CONFIG', category: 'user', origin: 'user', name: 'CommandLineError' });
    }
  });
});

describe('shellScriptFromTemplate', () => {
  it('is the template text, exactly', () => {
    expect(script(`cd /tmp && printf '%s' "$HIVEWATCH_PROMPT" | tool --x='a b' | tee "out file"`)).toBe(
      `cd /tmp && printf '%s' "$HIVEWATCH_PROMPT" | tool --x='a b' | tee "out file"`,
    );
  });

  it('never puts a value into a script', () => {
    expect(() => script('echo {prompt}')).toThrow(
      new CommandLineError('{prompt} cannot be used in a shell: true command: read "$HIVEWATCH_PROMPT" / "$HIVEWATCH_MODEL" instead'),
    );
  });

  it('shellQuote makes one word of any value (for tests and printed command lines)', () => {
    expect(shellQuote("a'b")).toBe(`'a'\\''b'`);
  });
});
