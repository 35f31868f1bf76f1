export { EndpointIndex, ENDPOINT_FIELDS, PLAIN_BM25, TUNED_BM25, type EndpointField, type RankedEndpoint, type RetrievalConfig } from './endpointIndex.js';
export { expectedEndpoint, measureRecall, rankOf, RECALL_CUTOFFS, type Recall, type RecallReport, type RetrievalSample, type SampleRank } from './recall.js';
export { stem, terms, words } from './terms.js';
