export { GgufFormatError, GGUF_MAX_ARRAY_ITEMS, readGgufEntries, readGgufFileEntries, readGgufFileHeader, readGgufMetadata, GGUF_TYPE, type GgufEntry, type GgufValue } from './read.js';
export { encodeGguf, type GgufOut, type GgufTensor } from './write.js';
export { decodeTokens, reconcileVocabulary, tokenBytes, vocabularyFromGguf, type TokenBytes, type Vocabulary } from './vocabulary.js';
