export { Sandbox, parseRecord, type CaptureMode, type Execution, type ExecutionErrorKind, type RawRequest, type RunOptions, type SandboxOptions, type Stub } from './sandbox.js';
export { extractInvocation, referenceProgram, searchStart, type CutRule, type Extraction, type ExtractionSetup, type RunRule } from './extract.js';
export { normalizeCaptured, normalizeRequest, type CapturedRequest, type Normalized, type NormalizeMode } from './normalize.js';
export { rewriteImports } from './program.js';
export { createExecutor, defaultPoolSize, type Executor, type ExecutorOptions } from './pool.js';
export { Supervisor, type SupervisorOptions } from './supervisor.js';
