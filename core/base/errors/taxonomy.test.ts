import { describe, expect, it } from 'vitest';
import { ERROR_CATEGORIES, ERROR_CODES, codeInfo, defaultOrigin, invariantProblem, isErrorCode, isValidOrigin, type ErrorCode } from './taxonomy.js';

const codes = Object.keys(ERROR_CODES) as ErrorCode[];

describe('error taxonomy', () => {
  it('has the eight categories of the design', () => {
    expect([...ERROR_CATEGORIES]).toEqual(['system', 'runtime', 'agent', 'scope', 'verification', 'git', 'user', 'policy']);
  });

  it('has unique codes, each prefixed by its category', () => {
    expect(new Set(codes).size).toBe(codes.length);
    for (const code of codes) {
      expect(code.startsWith(`${codeInfo(code).category.toUpperCase()}_`), code).toBe(true);
    }
  });

  it('has unique codes within each category once the prefix is removed', () => {
    for (const category of ERROR_CATEGORIES) {
      const suffixes = codes.filter((c) => codeInfo(c).category === category).map((c) => c.slice(category.length + 1));
      expect(suffixes.length, category).toBeGreaterThan(0);
      expect(new Set(suffixes).size, category).toBe(suffixes.length);
    }
  });

  it('contains the codes the design names', () => {
    for (const code of [
      'RUNTIME_TIMEOUT',
      'RUNTIME_CRASHED',
      'RUNTIME_RATE_LIMIT',
      'RUNTIME_OUTPUT_MALFORMED',
      'AGENT_NO_CHANGES',
      'USER_INVALID_FLOW',
      'POLICY_RETRY_LIMIT_EXCEEDED',
      'POLICY_MAX_STEPS_EXCEEDED',
      'SYSTEM_INVARIANT_VIOLATED',
      'SYSTEM_RUN_INTERRUPTED',
    ]) {
      expect(isErrorCode(code), code).toBe(true);
    }
    expect(isErrorCode('RUNTIME_NOPE')).toBe(false);
    expect(isErrorCode('toString')).toBe(false);
  });

  it('marks scope, user and policy codes non-recoverable (fatal)', () => {
    for (const code of codes) {
      const { category, recoverable } = codeInfo(code);
      if (category === 'scope' || category === 'user' || category === 'policy') expect(recoverable, code).toBe(false);
    }
  });

  it('accepts the origins of the design and nothing else', () => {
    for (const origin of [
      'system',
      'runtime:claude-code',
      'agent:worker-abc123',
      'verifier',
      'check:pytest',
      'scope_enforcer',
      'git',
      'user',
      'policy',
      'hook:PreToolUse-Bash',
      'mcp:github',
    ]) {
      expect(isValidOrigin(origin), origin).toBe(true);
    }
    for (const origin of ['', 'runtime', 'runtime:', 'agent:a b', 'Runtime:x', 'cli', 'system:x', 'check:a/b', 'hook:', 'mcp:a b', 'hook:PreToolUse:Bash']) {
      expect(isValidOrigin(origin), origin).toBe(false);
    }
  });

  it('lets only agent errors come from a hook or an MCP server', () => {
    expect(invariantProblem('agent', 'hook:PreToolUse-Bash', false)).toBeNull();
    expect(invariantProblem('agent', 'mcp:github', true)).toBeNull();
    expect(invariantProblem('runtime', 'hook:PreToolUse-Bash', true)).toBe(
      'a runtime error must originate from "runtime:<adapter>", got "hook:PreToolUse-Bash"',
    );
    expect(invariantProblem('system', 'mcp:github', false)).toBe('a system error must originate from "system", got "mcp:github"');
  });

  it('gives every category a valid default origin', () => {
    expect(ERROR_CATEGORIES.map(defaultOrigin)).toEqual(['system', 'runtime:unknown', 'agent:default', 'scope_enforcer', 'verifier', 'git', 'user', 'policy']);
    expect(ERROR_CATEGORIES.map(defaultOrigin).every(isValidOrigin)).toBe(true);
  });
});
