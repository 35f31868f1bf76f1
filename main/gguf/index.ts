export { readGgufEntries, readGgufFileEntries, readGgufMetadata, GGUF_TYPE, type GgufEntry, type GgufValue } from './read.js';
export { encodeGguf, type GgufOut, type GgufTensor } from './write.js';
