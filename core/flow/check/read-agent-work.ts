import { WorkspaceMode, type CheckSpec, type SessionWork } from '../plan/agent-work.js';
import type { Position, Property, PropertyValue } from '../syntax/ast.js';
import { describeValue } from '../syntax/parse-properties.js';
import { literalText, readBoolean, readDuration, type Report } from './properties.js';
import { scopePatternProblem } from '../plan/scope.js';

/*
 * Reading the agent-work properties of a session or an agent (core/flow/plan/agent-work.ts says what
 * they mean). Apart from the types so that the plan's types never import the property readers.
 */

const WORKSPACE_MODES: readonly string[] = Object.values(WorkspaceMode);

export function readWorkspace(value: PropertyValue, report: Report): WorkspaceMode | null {
  const text = literalText('workspace', value, `one of ${WORKSPACE_MODES.join(', ')}`, report);
  if (text === null) return null;
  if (!WORKSPACE_MODES.includes(text)) {
    report(`workspace must be one of ${WORKSPACE_MODES.map((m) => `"${m}"`).join(', ')}, got ${describeValue(value)}`, value.pos);
    return null;
  }
  return text as WorkspaceMode;
}

/** A shell command known before the run: a literal string. */
export function readCommand(name: string, value: PropertyValue, report: Report): string | null {
  if (value.kind !== 'string') {
    report(`${name} must be a "command", got ${describeValue(value)}`, value.pos);
    return null;
  }
  const text = literalText(name, value, 'a "command"', report);
  if (text !== null && text.trim() === '') report(`${name} cannot be an empty command`, value.pos);
  return text;
}

function readScope(value: PropertyValue, report: Report): string[] | null {
  const items = value.kind === 'list' ? value.items : [value];
  const patterns: string[] = [];
  for (const item of items) {
    if (item.kind !== 'string') {
      report(`scope must be a list of "path patterns" such as ["src/**"], got ${describeValue(item)}`, item.pos);
      continue;
    }
    const pattern = literalText('scope', item, '"path pattern"', report);
    if (pattern === null) continue;
    const problem = scopePatternProblem(pattern);
    if (problem) report(problem, item.pos);
    else patterns.push(pattern);
  }
  if (value.kind === 'list' && value.items.length === 0)
    report('scope must name at least one path pattern (an empty scope allows no change: use expect-changes: false instead)', value.pos);
  return patterns;
}

function readChecks(value: PropertyValue, report: Report): CheckSpec[] {
  if (value.kind !== 'block') {
    report(`verify takes a block of checks, one per line (name: "command"), got ${describeValue(value)}`, value.pos);
    return [];
  }
  const checks: CheckSpec[] = [];
  const seen = new Map<string, Position>();
  for (const property of value.properties) {
    const first = seen.get(property.name);
    if (first) {
      report(`duplicate check "${property.name}": it is already defined at ${first.line}:${first.column}`, property.pos);
      continue;
    }
    seen.set(property.name, property.pos);
    if (!/^[A-Za-z0-9_.-]+$/.test(property.name)) {
      report(`check names may use letters, digits, "_", "." and "-" (they become the origin check:<name>), got "${property.name}"`, property.pos);
      continue;
    }
    const command = readCommand(`check "${property.name}"`, property.value, report);
    if (command !== null) checks.push({ name: property.name, command, pos: property.pos });
  }
  return checks;
}

export function readSessionWork(props: ReadonlyMap<string, Property>, report: Report): SessionWork {
  const value = (name: string): PropertyValue | undefined => props.get(name)?.value;
  const workspace = value('workspace');
  const scope = value('scope');
  const expect = value('expect-changes');
  const verify = value('verify');
  const verifier = value('verifier');
  const checkTimeout = value('check-timeout');
  return {
    workspace: workspace ? readWorkspace(workspace, report) : null,
    scope: scope ? readScope(scope, report) : null,
    expectChanges: (expect && readBoolean('expect-changes', expect, report)) ?? false,
    checks: verify ? readChecks(verify, report) : [],
    verifier: verifier ? literalText('verifier', verifier, 'an agent name', report) : null,
    verifierPos: verifier?.pos ?? null,
    checkTimeoutMs: (checkTimeout && readDuration('check-timeout', checkTimeout, report)) ?? null,
  };
}
