import type { AgentDecl, Position, Property, SessionStmt, Template } from './ast.js';
import { expectName } from './keywords.js';
import { describeToken } from './lexer.js';
import { describeValue, parseInlineProperties, parsePropertyLines } from './parse-properties.js';
import { describeTemplate, templateRefs } from './template.js';
import type { TokenCursor } from './token-cursor.js';

/**
 * The two statements that say what work runs: an `agent` declaration (a runtime profile: a name
 * and its property block) and a `session` (one task: its prompt, its agent, its properties).
 * Neither holds statements, so they are parsed here apart from the block grammar of parser.ts.
 */

/** Reports a problem of meaning (a second `prompt:`): it does not make the syntax invalid. */
export type ReportSemantic = (message: string, pos: Position) => void;

/** `agent name:` and the property block under it. */
export function parseAgent(c: TokenCursor): AgentDecl {
  const keyword = c.next();
  const name = expectName(c, 'an agent name after "agent"');
  c.expectBlockHeader(`agent ${name.text}`);
  const properties = c.indentedBlock(keyword, `agent ${name.text}:`, () => parsePropertyLines(c, `agent "${name.text}"`));
  return { kind: 'agent', name: name.text, properties, pos: keyword.pos };
}

/** `session "prompt"`, `session: agent`, either with `(inline: properties)` and a property block. */
export function parseSession(c: TokenCursor, reportSemantic: ReportSemantic): SessionStmt {
  const keyword = c.next();
  let prompt: Template | null = null;
  let agent: string | null = null;
  let agentPos: Position | null = null;
  if (c.acceptPunct(':')) {
    const name = c.peek();
    if (name.kind !== 'word') c.fail(`expected an agent name after "session:", got ${describeToken(name)}`);
    c.next();
    agent = name.text;
    agentPos = name.pos;
  } else {
    const literal = c.peek();
    if (literal.kind === 'string') {
      c.next();
      prompt = literal.template;
    }
  }
  const inline = c.atPunct('(') ? parseInlineProperties(c) : [];
  c.expectEndOfLine('the session');
  const block = c.at('indent') ? c.indentedBlock(keyword, 'session', () => parsePropertyLines(c, 'a session')) : [];

  // `prompt:` and `agent:` are the block spellings of `session "..."` and `session: name`;
  // folding them here gives the engine one place to read each from.
  const properties: Property[] = [];
  for (const property of [...inline, ...block]) {
    const { value } = property;
    if (property.name === 'prompt') {
      if (prompt !== null) reportSemantic('the session already has a prompt: give it once', property.pos);
      else if (value.kind !== 'string') reportSemantic(`prompt must be a "string", got ${describeValue(value)}`, value.pos);
      else prompt = value.value;
    } else if (property.name === 'agent') {
      if (agent !== null) reportSemantic('the session already names an agent: name it once', property.pos);
      else if (value.kind === 'word') [agent, agentPos] = [value.value, value.pos];
      else if (value.kind === 'string' && templateRefs(value.value).length === 0) [agent, agentPos] = [describeTemplate(value.value), value.pos];
      else reportSemantic(`agent must be an agent name, got ${describeValue(value)}`, value.pos);
    } else {
      properties.push(property);
    }
  }
  if (prompt === null && agent === null) {
    reportSemantic('session needs a prompt: write session "..." or name an agent with session: name', keyword.pos);
  }
  return { kind: 'session', pos: keyword.pos, prompt, agent, agentPos, properties, ordinal: -1 };
}
