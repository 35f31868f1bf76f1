export * from './contract.js';
export * from './schemas.js';
export * from './result.js';
export * from './evaluation.js';
