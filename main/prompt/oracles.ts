import type { HttpClient } from '../api/clients.js';
import { fetchOracleProgram } from './fetchOracle.js';
import { oracleProgram } from './oracle.js';

/** Each client's ground-truth writer: the program that makes a sample's request with that client. */
export const ORACLE_WRITERS: Readonly<Record<HttpClient, typeof oracleProgram>> = { axios: oracleProgram, fetch: fetchOracleProgram };
