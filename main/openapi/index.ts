export type {
  ApiSpec,
  ArgumentLocation,
  BodyProperty,
  Endpoint,
  HttpMethod,
  JsonSchema,
  Parameter,
  ParameterLocation,
  PathTemplate,
  RequestBody,
  RequestBodyContent,
  SecurityScheme,
} from './model.js';
export { ARGUMENT_LOCATIONS, HTTP_METHODS } from './model.js';
export { loadSpec, specFormatOf, type SpecFormat } from './load.js';
export { parseSpecText } from './parse.js';
export { CONVERTED_FROM, convertSwagger2, importSpecFile, isSwagger2, type ImportedSpecFile } from './convert.js';
export { bundleSpec, hasExternalRefs, type ReadSpecFile } from './bundle.js';
export { BROKEN_REF, brokenRefs, type BrokenRef } from './refs.js';
export { withoutBrokenRefs } from './lenient.js';
export { checkServerUrl, GIVEN_SERVER, withServer } from './server.js';
export {
  argumentSource,
  findEndpoint,
  isPermitted,
  methodsAt,
  pathCandidates,
  resolveEndpoint,
  endpointUrlPattern,
  splitServer,
  type ArgumentSource,
  type PathCandidate,
  type ResolvedRequest,
} from './match.js';
export { validateValue, type ValueProblem } from './validate.js';
export { escapeRegExp, followLocalRef, mergeAllOf, specDocument } from './build.js';
export { MAX_NESTING, shortPath, valueProblem, type UnsafeValue } from './nesting.js';
export { parseJsonStrictly } from './json.js';
export { describeChange, diffSpecs, endpointKey, typeSignature, type ArgumentChange, type ArgumentChangeKind, type EndpointChange, type EndpointKey, type SpecDiff } from './diff.js';
