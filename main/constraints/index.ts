export { compileConstraints, ConstraintMatcher, type FeedResult, type StateKey } from './matcher.js';
export type { CompiledSpec } from './invocation.js';
export type { ObjectRule, ValueRule } from './rules.js';
export { automatonLimits, hasBit, readAhead, restoreTokenIndex, serializeTokenIndex, TokenConstraint, tokenIndex, tokenIndexKey, type TokenIndex } from './tokens.js';
export { preparedTokenIndex, type Prepared } from './prepared.js';
// A model's vocabulary is tokenizer data read from its GGUF file (main/gguf): here too, for the token masks' users.
export { decodeTokens, reconcileVocabulary, tokenBytes, vocabularyFromGguf, type TokenBytes, type Vocabulary } from '../gguf/index.js';
export { exportGbnf } from './gbnf.js';
export { declaredNames, namesInScope } from './scope.js';
