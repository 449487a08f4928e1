import type { Property, PropertyValue } from './ast.js';
import { describeToken } from './lexer.js';
import { describeTemplate } from './template.js';
import { ParseError, type TokenCursor } from './token-cursor.js';

/**
 * The property syntax shared by agents, sessions and parallels: inline `(retry: 3, backoff: x)`
 * lists, indented `name: value` blocks, and values. Values are kept as written (number, string,
 * word, list); what a property accepts is the validator's business, so one grammar serves all.
 */

export function parseValue(c: TokenCursor): PropertyValue {
  const token = c.peek();
  switch (token.kind) {
    case 'number':
      c.next();
      return { kind: 'number', value: token.value, pos: token.pos };
    case 'string':
      c.next();
      return { kind: 'string', value: token.template, pos: token.pos };
    case 'word':
      c.next();
      return { kind: 'word', value: token.text, pos: token.pos };
    case 'punct':
      if (token.text === '[') return parseList(c);
      break;
    default:
      break;
  }
  return c.fail(`expected a value (a number, a "string", a word or a [list]), got ${describeToken(token)}`);
}

function parseList(c: TokenCursor): PropertyValue {
  const open = c.peek();
  return c.nested(open, () => {
    c.next();
    const items: PropertyValue[] = [];
    if (c.acceptPunct(']')) return { kind: 'list', items, pos: open.pos };
    for (;;) {
      items.push(parseValue(c));
      if (c.acceptPunct(']')) return { kind: 'list', items, pos: open.pos };
      c.expectPunct(',', '"," or "]" in the list');
    }
  });
}

function parseNameValue(c: TokenCursor, where: string): Property {
  const name = c.peek();
  if (name.kind !== 'word') return c.fail(`expected a property name ${where}, got ${describeToken(name)}`);
  c.next();
  c.expectPunct(':', `":" after the property name "${name.text}"`);
  return { name: name.text, value: parseValue(c), pos: name.pos };
}

/** At `(`: `(retry: 3, backoff: "exponential")`. */
export function parseInlineProperties(c: TokenCursor): Property[] {
  c.expectPunct('(', '"("');
  const properties: Property[] = [];
  if (c.acceptPunct(')')) return properties;
  for (;;) {
    properties.push(parseNameValue(c, 'in ( )'));
    if (c.acceptPunct(')')) return properties;
    c.expectPunct(',', '"," or ")" after the property value');
  }
}

/** The lines of an indented property block, up to its DEDENT; `owner` names it in messages ("agent \"coder\""). */
export function parsePropertyLines(c: TokenCursor, owner: string): Property[] {
  const properties: Property[] = [];
  while (!c.at('dedent') && !c.at('eof')) {
    if (c.at('indent')) {
      c.report('unexpected indentation: a property line has no block of its own', c.peek().pos);
      c.skipBlock();
      continue;
    }
    try {
      const first = c.peek();
      if (first.kind !== 'word' || !c.atPunct(':', 1)) {
        c.fail(`expected a property (name: value) in the block of ${owner}, got ${describeToken(first)}`);
      }
      if (c.at('newline', 2) && c.at('indent', 3)) {
        // `verify:` and the like: the value is the block of properties indented under the name.
        const name = c.next();
        c.next();
        c.next();
        const nested = c.indentedBlock(name, `${name.text}:`, () => parsePropertyLines(c, `"${name.text}"`));
        properties.push({ name: name.text, value: { kind: 'block', properties: nested, pos: name.pos }, pos: name.pos });
        continue;
      }
      properties.push(parseNameValue(c, `in the block of ${owner}`));
      c.expectEndOfLine('the property value');
    } catch (error) {
      if (!(error instanceof ParseError)) throw error;
      c.reportError(error);
      c.skipLine();
    }
  }
  return properties;
}

/** How a value is shown in "must be ..., got X" messages: as the operator wrote it. */
export function describeValue(value: PropertyValue): string {
  switch (value.kind) {
    case 'number':
      return String(value.value);
    case 'string':
      return JSON.stringify(describeTemplate(value.value));
    case 'word':
      return value.value;
    case 'list':
      return `[${value.items.map(describeValue).join(', ')}]`;
    case 'block':
      return `a block of ${value.properties.length} properties`;
  }
}
