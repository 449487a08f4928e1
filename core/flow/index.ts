/** The flow language front end: text in, diagnostics and a FlowPlan out. */
export * from './ast.js';
export * from './plan.js';
export { parseDuration, formatDuration, type DurationResult } from './duration.js';
export { parseSimulate, outcomeForAttempt, SIMULATED_KINDS, type SimulatedOutcome, type SimulateParse } from './simulate.js';
export { lex, describeToken, type Token, type TokenKind, type Punct, type LexResult } from './lexer.js';
export {
  parseTemplate,
  templateFromString,
  renderTemplate,
  formatValue,
  lookupIn,
  templateRefs,
  describeTemplate,
  type TemplateRef,
  type TemplateParse,
  type TemplateProblem,
  type TemplateOrigin,
} from './template.js';
export { parseFlow, KEYWORDS, type ParseResult } from './parser.js';
export { SESSION_PROPERTIES, AGENT_PROPERTIES, PARALLEL_PROPERTIES } from './properties.js';
export { sessionName, SESSION_NAME_MAX } from './specs.js';
export { validateProgram, ERROR_FIELDS, type ValidateOptions, type Validation } from './validate.js';
export { checkFlow, checkFlowFile } from './check.js';
export { sortDiagnostics } from './diagnostics.js';
