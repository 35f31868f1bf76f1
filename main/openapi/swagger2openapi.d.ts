// swagger2openapi ships no types; only the call the importer makes is declared.
declare module 'swagger2openapi' {
  interface ConvertOptions {
    /** Fix small, common errors of Swagger documents instead of failing on them. */
    patch?: boolean;
    /** Record a problem as an `x-s2o-warning` instead of failing. */
    warnOnly?: boolean;
    /** Resolve the promise with the converted document itself rather than an options object. */
    direct?: boolean;
    /** Never fetch external `$ref`s. */
    resolve?: boolean;
  }
  const swagger2openapi: { convertObj(swagger: object, options: ConvertOptions): Promise<Record<string, unknown>> };
  export default swagger2openapi;
}
