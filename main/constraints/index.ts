export { compileConstraints, ConstraintMatcher, type FeedResult, type StateKey } from './matcher.js';
export type { CompiledSpec } from './invocation.js';
export type { ObjectRule, ValueRule } from './rules.js';
export { automatonLimits, hasBit, readAhead, restoreTokenIndex, serializeTokenIndex, TokenConstraint, tokenIndex, tokenIndexKey, type TokenIndex } from './tokens.js';
export { preparedTokenIndex, type Prepared } from './prepared.js';
export { decodeTokens, reconcileVocabulary, tokenBytes, vocabularyFromGguf, type TokenBytes, type Vocabulary } from './vocabulary.js';
export { exportGbnf } from './gbnf.js';
export { declaredNames, namesInScope } from './scope.js';
