import { NO_RETRY, validateRetryPolicy, type BackoffKind, type RetryPolicy } from '../../base/errors/retry.js';
import { OnFail, type Position, type Property, type PropertyValue, type Template } from '../syntax/ast.js';
import { parseDuration } from '../../base/duration.js';
import { describeValue } from '../syntax/parse-properties.js';
import { RUNTIME_KINDS, type RuntimeKind } from '../plan/plan.js';
import { parseSimulate } from '../plan/simulate.js';
import { describeTemplate, templateRefs } from '../syntax/template.js';

/**
 * What each property accepts, and how a written value becomes a typed one. Every reader reports
 * a problem at the value's own token and still returns something, so one pass finds every
 * problem. The retry readers keep invalid values as written (rule 3: the engine re-validates
 * policies before step 0 and names the smallest ordinal), using NaN for an unreadable number.
 */

export type Report = (message: string, pos: Position) => void;

export const SESSION_PROPERTIES = [
  'prompt',
  'context',
  'timeout',
  'simulate',
  'retry',
  'backoff',
  'delay',
  'max-delay',
  'agent',
  'workspace',
  'scope',
  'expect-changes',
  'verify',
  'verifier',
  'check-timeout',
] as const;
export const AGENT_PROPERTIES = [
  'runtime',
  'command',
  'timeout',
  'retry',
  'backoff',
  'delay',
  'max-delay',
  'model',
  'cwd',
  'shell',
  'env',
  'secrets',
  'workspace',
  'setup',
] as const;
export const PARALLEL_PROPERTIES = ['on-fail'] as const;

const ON_FAIL_VALUES: readonly string[] = Object.values(OnFail);
const ENV_ENTRY = /^[A-Za-z_][A-Za-z0-9_]*=/;

const at = (pos: Position): string => `${pos.line}:${pos.column}`;

/** Reports unknown and repeated property names; returns the first property of each name. */
export function indexProperties(properties: readonly Property[], allowed: readonly string[], owner: string, report: Report): Map<string, Property> {
  const byName = new Map<string, Property>();
  for (const property of properties) {
    if (!allowed.includes(property.name)) {
      report(`unknown property "${property.name}" for ${owner}: expected one of ${allowed.join(', ')}`, property.pos);
      continue;
    }
    const first = byName.get(property.name);
    if (first) {
      report(`duplicate property "${property.name}": it is already set at ${at(first.pos)}`, property.pos);
      continue;
    }
    byName.set(property.name, property);
  }
  return byName;
}

/**
 * A word, or a string without placeholders: for values read before the run starts (durations,
 * names, enumerations), where `{x}` could never be filled in.
 */
export function literalText(name: string, value: PropertyValue, expected: string, report: Report): string | null {
  if (value.kind === 'word') return value.value;
  if (value.kind === 'string') {
    const ref = templateRefs(value.value)[0];
    if (ref) {
      report(`${name} cannot use placeholders such as {${ref.path.join('.')}}: it is read before the run starts`, ref.pos);
      return null;
    }
    return describeTemplate(value.value);
  }
  report(`${name} must be ${expected}, got ${describeValue(value)}`, value.pos);
  return null;
}

/** Milliseconds, or undefined when the value is not a valid duration (reported). */
export function readDuration(name: string, value: PropertyValue, report: Report): number | undefined {
  const text = literalText(name, value, 'a duration such as "30s"', report);
  if (text === null) return undefined;
  const parsed = parseDuration(text);
  if (!parsed.ok) {
    report(parsed.message, value.pos);
    return undefined;
  }
  return parsed.ms;
}

export function readTemplate(name: string, value: PropertyValue, report: Report): Template | null {
  if (value.kind === 'string') return value.value;
  report(`${name} must be a "string", got ${describeValue(value)}`, value.pos);
  return null;
}

export function readBoolean(name: string, value: PropertyValue, report: Report): boolean | null {
  if (value.kind === 'word' && (value.value === 'true' || value.value === 'false')) return value.value === 'true';
  report(`${name} must be true or false, got ${describeValue(value)}`, value.pos);
  return null;
}

export function readRuntime(value: PropertyValue, report: Report): RuntimeKind | null {
  const text = literalText('runtime', value, `one of ${RUNTIME_KINDS.join(', ')}`, report);
  if (text === null) return null;
  if ((RUNTIME_KINDS as readonly string[]).includes(text)) return text as RuntimeKind;
  report(`unknown runtime "${text}": expected one of ${RUNTIME_KINDS.join(', ')}`, value.pos);
  return null;
}

export function readOnFail(value: PropertyValue, report: Report): OnFail | null {
  const text = literalText('on-fail', value, `one of ${ON_FAIL_VALUES.join(', ')}`, report);
  if (text === null) return null;
  if (ON_FAIL_VALUES.includes(text)) return text as OnFail;
  report(`on-fail must be one of ${ON_FAIL_VALUES.join(', ')}, got ${describeValue(value)}`, value.pos);
  return null;
}

/** The fake runtime's script, checked now so a typo fails `check` rather than attempt 1. */
export function readSimulate(value: PropertyValue, report: Report): string | null {
  const text = literalText('simulate', value, 'a "string" of outcomes such as "rate_limit, ok"', report);
  if (text === null) return null;
  const parsed = parseSimulate(text);
  if (!parsed.ok) report(parsed.message, value.pos);
  return text;
}

export interface NameRef {
  name: string;
  pos: Position;
}

/** `context: plan` or `context: [plan, notes]`: names, checked against the channels by the validator. */
export function readContext(value: PropertyValue, report: Report): NameRef[] {
  const items = value.kind === 'list' ? value.items : [value];
  const names: NameRef[] = [];
  for (const item of items) {
    if (item.kind === 'word') names.push({ name: item.value, pos: item.pos });
    else report(`context must be a variable name or a [list] of names, got ${describeValue(item)}`, item.pos);
  }
  return names;
}

export function readEnv(value: PropertyValue, report: Report): Record<string, string> {
  const env: Record<string, string> = {};
  const items = value.kind === 'list' ? value.items : [value];
  for (const item of items) {
    if (item.kind !== 'string') {
      report(`env must be a list of "KEY=VALUE" strings, got ${describeValue(item)}`, item.pos);
      continue;
    }
    const text = literalText('env', item, '"KEY=VALUE"', report);
    if (text === null) continue;
    if (!ENV_ENTRY.test(text)) {
      report(`env entries must look like "KEY=VALUE", got ${JSON.stringify(text)}`, item.pos);
      continue;
    }
    const eq = text.indexOf('=');
    env[text.slice(0, eq)] = text.slice(eq + 1);
  }
  return env;
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * `secrets: [API_BASE, "SIGNING_SALT"]`: variables of the agent's `env:` whose values are secrets
 * although their names do not say so. Each must be set by that `env:` (a name it does not set
 * would protect nothing, silently) and named once.
 */
export function readSecrets(value: PropertyValue, env: Readonly<Record<string, string>>, report: Report): string[] {
  const names: string[] = [];
  const seen = new Map<string, Position>();
  for (const item of value.kind === 'list' ? value.items : [value]) {
    if (item.kind !== 'word' && item.kind !== 'string') {
      report(`secrets must be a [list] of env: variable names, got ${describeValue(item)}`, item.pos);
      continue;
    }
    const name = literalText('secrets', item, 'a variable name', report);
    if (name === null) continue;
    if (!ENV_NAME.test(name)) {
      report(`secrets names variables of env:, such as API_BASE; ${JSON.stringify(name)} is not a variable name`, item.pos);
      continue;
    }
    const first = seen.get(name);
    if (first) {
      report(`secrets already names ${name} at ${at(first)}`, item.pos);
      continue;
    }
    seen.set(name, item.pos);
    if (!(name in env)) {
      report(`secrets names ${name}, which this agent's env: does not set: add "${name}=…" to env:, or remove it here`, item.pos);
      continue;
    }
    names.push(name);
  }
  return names;
}

function readBackoff(value: PropertyValue, report: Report): RetryPolicy['backoff'] {
  if (value.kind === 'list') {
    const delays = value.items.map((item) => {
      if (item.kind === 'word' || item.kind === 'string') return readDuration('a backoff delay', item, report) ?? Number.NaN;
      report(`backoff list items must be durations such as 1s, got ${describeValue(item)}`, item.pos);
      return Number.NaN;
    });
    if (delays.length === 0) {
      report(validateRetryPolicy({ ...NO_RETRY, backoff: delays }) ?? 'backoff list must name at least one delay', value.pos);
    }
    return delays;
  }
  // A kind, quoted or not. Kept as written when unknown: the engine re-validates (rule 3).
  const text = value.kind === 'word' ? value.value : value.kind === 'string' ? describeTemplate(value.value) : describeValue(value);
  const message = validateRetryPolicy({ ...NO_RETRY, backoff: text as BackoffKind });
  if (message) report(message, value.pos);
  return text as BackoffKind;
}

/**
 * The policy set by `retry` / `backoff` / `delay` / `max-delay`, or null when none of them is
 * written. Each part is checked on its own so that its message points at its own value.
 */
export function readRetryPolicy(properties: ReadonlyMap<string, Property>, reportProblem: Report): RetryPolicy | null {
  let problems = 0;
  const report: Report = (message, pos) => {
    problems += 1;
    reportProblem(message, pos);
  };
  const retry = properties.get('retry');
  const backoff = properties.get('backoff');
  const delay = properties.get('delay');
  const maxDelay = properties.get('max-delay');
  if (!retry && !backoff && !delay && !maxDelay) return null;

  let retries = 0;
  if (retry?.value.kind === 'number') {
    retries = retry.value.value;
    const message = validateRetryPolicy({ ...NO_RETRY, retries });
    if (message) report(message, retry.value.pos);
  } else if (retry) {
    report(`retry must be a whole number such as 3, got ${describeValue(retry.value)}`, retry.value.pos);
    retries = Number.NaN;
  }
  const backoffValue = backoff ? readBackoff(backoff.value, report) : null;
  const baseDelayMs = delay ? (readDuration('delay', delay.value, report) ?? Number.NaN) : null;
  const maxDelayMs = maxDelay ? (readDuration('max-delay', maxDelay.value, report) ?? Number.NaN) : null;
  if (maxDelay && Number.isFinite(baseDelayMs) && Number.isFinite(maxDelayMs)) {
    const message = validateRetryPolicy({ ...NO_RETRY, baseDelayMs, maxDelayMs });
    if (message) report(message, maxDelay.value.pos);
  }
  const policy: RetryPolicy = { retries, backoff: backoffValue, baseDelayMs, maxDelayMs };
  // Each part was reported where it is written; once they all read well the whole policy is
  // checked, so that a policy the engine would not follow as written (rule 3) never passes `check`.
  if (problems === 0) {
    const message = validateRetryPolicy(policy);
    if (message) report(message, (maxDelay ?? backoff ?? delay ?? retry)?.value.pos ?? { line: 1, column: 1 });
  }
  return policy;
}
