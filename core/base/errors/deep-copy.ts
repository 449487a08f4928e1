/**
 * `structuredClone`, which both runtimes the error classes run in have (Node since 17, every
 * browser) but which neither ES2023's type library nor the shared pure layer's compile
 * (tsconfig.common.json) declares: typed here once, so the error hierarchy stays reachable from
 * core/common without Node's or the DOM's types.
 */
const runtime = globalThis as unknown as { structuredClone<T>(value: T): T };

export function deepCopy<T>(value: T): T {
  return runtime.structuredClone(value);
}
