import { describe, expect, it } from 'vitest';
import { describeTemplate, formatValue, lookupIn, parseTemplate, renderTemplate, templateFromString, templateRefs } from './template.js';

describe('parseTemplate', () => {
  it('splits text and holes, with each hole at the column of its {', () => {
    const { template, problems } = parseTemplate('Fix {plan} because {err.message}!', { pos: { line: 3, column: 10 } });
    expect(problems).toEqual([]);
    expect(template).toEqual({
      pos: { line: 3, column: 10 },
      parts: [
        { kind: 'text', text: 'Fix ' },
        { kind: 'ref', path: ['plan'], pos: { line: 3, column: 14 } },
        { kind: 'text', text: ' because ' },
        { kind: 'ref', path: ['err', 'message'], pos: { line: 3, column: 29 } },
        { kind: 'text', text: '!' },
      ],
    });
  });

  it('reads {{ and }} as literal braces', () => {
    const { template, problems } = parseTemplate('JSON: {{"a": {{{x}}}}}');
    expect(problems).toEqual([]);
    expect(template.parts).toEqual([
      { kind: 'text', text: 'JSON: {"a": {' },
      { kind: 'ref', path: ['x'], pos: { line: 1, column: 16 } },
      { kind: 'text', text: '}}' },
    ]);
  });

  it('allows names with dashes, index segments and spaces inside the braces', () => {
    expect(templateRefs(templateFromString('{max-delay} {results.0} { plan }')).map((r) => r.path)).toEqual([['max-delay'], ['results', '0'], ['plan']]);
  });

  it('reports an unclosed {, a lone } and an invalid placeholder at their columns', () => {
    expect(parseTemplate('a {b').problems).toEqual([
      { message: 'unclosed { in string: close the placeholder with } or write {{ for a literal brace', pos: { line: 1, column: 3 } },
    ]);
    expect(parseTemplate('a } b').problems).toEqual([{ message: 'unmatched } in string: write }} for a literal brace', pos: { line: 1, column: 3 } }]);
    expect(parseTemplate('x {"a": 1}').problems).toEqual([
      {
        message: 'invalid placeholder {"a": 1}: expected a name such as {plan} or {err.message}, or write {{ for a literal brace',
        pos: { line: 1, column: 3 },
      },
    ]);
    expect(parseTemplate('{}').problems).toHaveLength(1);
  });

  it('templateFromString throws on a problem', () => {
    expect(() => templateFromString('oops {')).toThrow(/unclosed \{/);
  });

  it('describeTemplate shows the template as written, holes included', () => {
    expect(describeTemplate(templateFromString('Implement {plan} now {{ok}}'))).toBe('Implement {plan} now {ok}');
  });
});

describe('renderTemplate', () => {
  const template = templateFromString('[{text}|{obj}|{list}|{none}|{missing}|{num}|{flag}|{err.message}]');
  const values = {
    text: 'plain',
    obj: { successes: ['a'], failures: [] },
    list: [1, 2],
    none: null,
    num: 3,
    flag: false,
    err: { message: 'boom', code: 'RUNTIME_CRASHED' },
  };

  it('renders strings as they are, structures as JSON, null and undefined as nothing', () => {
    expect(renderTemplate(template, lookupIn(values))).toBe('[plain|{"successes":["a"],"failures":[]}|[1,2]|||3|false|boom]');
  });

  it('passes the whole path to the lookup', () => {
    const seen: string[] = [];
    renderTemplate(templateFromString('{a.b.c}{d}'), (path) => {
      seen.push(path.join('/'));
      return '';
    });
    expect(seen).toEqual(['a/b/c', 'd']);
  });

  it('lookupIn does not read inherited properties or through non-objects', () => {
    const lookup = lookupIn({ s: 'text' });
    expect(lookup(['toString'])).toBeUndefined();
    expect(lookup(['s', 'length'])).toBeUndefined();
  });

  it('formatValue survives a cyclic value', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(formatValue(cyclic)).toBe('[object Object]');
  });
});
