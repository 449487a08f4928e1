export * from '../base/events.js';
export * from '../base/clock.js';
export * from './channels.js';
export * from './limiter.js';
export * from './resume.js';
export * from './sinks.js';
export * from './canonical.js';
export { FlowRun, type RunConfig, type RunResult } from './run.js';
export { resolveAgent } from './agents.js';
