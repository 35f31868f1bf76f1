/**
 * The parts of an OpenAPI document the workbench reasons about: where requests may go
 * (servers + endpoints) and which arguments each endpoint permits at each location.
 */

export type HttpMethod = 'get' | 'put' | 'post' | 'delete' | 'patch' | 'head' | 'options' | 'trace';
export const HTTP_METHODS: readonly HttpMethod[] = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];

/** A JSON Schema as found in the spec (OpenAPI 3.0 dialect or 3.1 / 2020-12), after dereferencing. */
export type JsonSchema = { readonly [key: string]: unknown };

export type ParameterLocation = 'path' | 'query' | 'header' | 'cookie';

export interface Parameter {
  readonly name: string;
  readonly in: ParameterLocation;
  readonly required: boolean;
  readonly schema: JsonSchema | undefined;
  readonly description?: string;
}

export interface BodyProperty {
  readonly name: string;
  readonly required: boolean;
  readonly readOnly: boolean;
  readonly schema: JsonSchema;
}

export interface RequestBodyContent {
  readonly mediaType: string;
  /** The schema with `allOf` merged at the top level. */
  readonly schema: JsonSchema | undefined;
  readonly properties: readonly BodyProperty[];
  /** True when the schema accepts keys beyond `properties` (`additionalProperties` not false, or no object schema). */
  readonly openProperties: boolean;
}

export interface RequestBody {
  readonly required: boolean;
  readonly contents: readonly RequestBodyContent[];
}

export interface Endpoint {
  readonly method: HttpMethod;
  /** Path template as written in the spec, e.g. `/teams/{team_gid}/users`. */
  readonly path: string;
  readonly operationId?: string;
  readonly summary?: string;
  readonly description?: string;
  /** Path-level and operation-level parameters merged (operation wins on name + location). */
  readonly parameters: readonly Parameter[];
  readonly requestBody?: RequestBody;
  /** The JSON schema of each response the operation declares, by status key (`200`, `2XX`, `default`); a response without a JSON body has none. */
  readonly responses?: Readonly<Record<string, JsonSchema>>;
  /** Names of the security schemes this operation accepts (its own `security`, else the document's). */
  readonly security: readonly string[];
  /**
   * The server URL templates this operation is served from: its own `servers`, else its path's,
   * else the document's (OpenAPI lets each level override the one above; Google Maps does).
   */
  readonly servers: readonly string[];
}

export type SecurityScheme =
  | { readonly name: string; readonly type: 'http'; readonly scheme: string }
  | { readonly name: string; readonly type: 'oauth2' | 'openIdConnect' }
  | { readonly name: string; readonly type: 'apiKey'; readonly in: 'query' | 'header' | 'cookie'; readonly keyName: string };

export interface PathTemplate {
  /** The path key as written, e.g. `/teams/{team_gid}/users` or Etherscan's `/?module=account&action=balance`. */
  readonly path: string;
  /** The key up to its `?`: what the URL's path must match. */
  readonly pathPart: string;
  /** Query arguments the key itself fixes (`module=account`); a request must send them to be this endpoint. */
  readonly query: Readonly<Record<string, string>>;
  readonly parameterNames: readonly string[];
  readonly pattern: RegExp;
  /** Every server any operation of the path may be served from (templates, see ApiSpec.servers). */
  readonly servers: readonly string[];
}

export interface ApiSpec {
  readonly title: string;
  readonly version: string;
  /** `3.0.x` or `3.1.x`. */
  readonly openapi: string;
  /**
   * Every server URL the document declares (document, path and operation level), trailing slashes
   * removed, longest first. A variable with an `enum` is expanded into its values; any other
   * variable stays a `{name}` segment that takes any value (Telegram's `https://api.telegram.org/bot{token}`).
   */
  readonly servers: readonly string[];
  readonly endpoints: readonly Endpoint[];
  readonly securitySchemes: readonly SecurityScheme[];
  /** One entry per distinct path template, in spec order. */
  readonly paths: readonly PathTemplate[];
}

/** The four places a request carries arguments, named as in the WAPIIBench configs. */
export type ArgumentLocation = 'headers' | 'params' | 'path_params' | 'data';
export const ARGUMENT_LOCATIONS: readonly ArgumentLocation[] = ['headers', 'params', 'path_params', 'data'];
