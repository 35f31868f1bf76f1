export { compileConstraints, ConstraintMatcher, type FeedResult } from './matcher.js';
export type { CompiledSpec } from './invocation.js';
export type { ObjectRule, ValueRule } from './rules.js';
