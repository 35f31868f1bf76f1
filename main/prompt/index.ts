export { QUOTES, starterCode, stringLiteral, type Quote, type Setup } from './starter.js';
export { jsLiteral, oracleProgram, type CallStyle } from './oracle.js';
