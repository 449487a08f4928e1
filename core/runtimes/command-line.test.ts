import { describe, expect, it } from 'vitest';
import { CommandLineError, commandValues, shellQuote, shellScriptFromTemplate, splitCommandTemplate, templateFromText } from './command-line.js';

const split = (text: string, prompt = 'P', model: string | null = 'M'): string[] => splitCommandTemplate(templateFromText(text), commandValues(prompt, model));
const script = (text: string, prompt: string): string => shellScriptFromTemplate(templateFromText(text), commandValues(prompt, null));
const HOSTILE = `it's "quoted"; rm -rf ~ $(touch /tmp/pwned) \`id\` && echo | cat > x \\ {prompt}`;

describe('splitCommandTemplate', () => {
  it('splits on whitespace and substitutes {prompt} and {model}', () => {
    expect(split('claude -p {prompt}  --model {model}')).toEqual(['claude', '-p', 'P', '--model', 'M']);
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
});

describe('shellScriptFromTemplate', () => {
  it('single-quotes a bare value', () => {
    expect(script('echo {prompt}', "it's")).toBe(`echo 'it'\\''s'`);
    expect(shellQuote("a'b")).toBe(`'a'\\''b'`);
  });

  it('escapes a value for the quotes it lands in', () => {
    expect(script("echo 'x{prompt}'", "it's")).toBe(`echo 'xit'\\''s'`);
    expect(script('echo "x{prompt}"', 'a"$b`c\\')).toBe('echo "xa\\"\\$b\\`c\\\\"');
  });

  it('passes the author text through as shell code', () => {
    expect(script('cd /tmp && tool {prompt} | tee "out file"', 'p')).toBe(`cd /tmp && tool 'p' | tee "out file"`);
  });
});
