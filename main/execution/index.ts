export { Sandbox, type Execution, type ExecutionErrorKind, type RawRequest, type SandboxOptions } from './sandbox.js';
export { extractInvocation, referenceProgram, type CutRule, type Extraction } from './extract.js';
export { normalizeRequest, type CapturedRequest } from './normalize.js';
export { rewriteImports } from './program.js';
export { createExecutor, defaultPoolSize, type Executor } from './pool.js';
