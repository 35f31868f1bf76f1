import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { unwrap } from '../api/result.js';
import { parseDataset } from '../dataset/index.js';
import { loadSpec, type ApiSpec } from '../openapi/index.js';
import { DEMO_DATASET, DEMO_SPECS } from '../../test/support/paths.js';
import { identifiedEntities } from './identified.js';
import { EndpointIndex, expectedEndpoint, measureRecall, PLAIN_BM25, rankOf, stem, terms } from './index.js';

describe('terms', () => {
  it('splits camelCase, snake_case and path segments, drops stopwords and numbers, stems plurals and tenses', () => {
    expect(terms('GET /users/me/calendarList/{calendarId}')).toEqual(['get', 'user', 'calendar', 'list', 'calendar']);
    expect(terms('user_task_list_gid addFollowers')).toEqual(['user', 'task', 'list', 'add', 'follower']);
    expect(terms('Get the first 50 attachments of the project')).toEqual(['get', 'first', 'attachment', 'project']);
    expect(['update', 'updated', 'updates', 'updating'].map(stem)).toEqual(['updat', 'updat', 'updat', 'updat']);
    expect(['policies', 'classes', 'status', 'archived'].map(stem)).toEqual(['policy', 'class', 'status', 'archiv']);
  });

  it('finds the entities a task names by identifier', () => {
    expect([...identifiedEntities("Get the projects the task with gid '321654' is in.")]).toEqual(['task']);
    expect([...identifiedEntities('Get the users in workspace 12345, filtered by user with gid 67890.')]).toEqual(['workspac', 'user']);
    expect([...identifiedEntities('Retrieve the spreadsheet with ID "<spreadsheetId>".')]).toEqual(['spreadsheet']);
    expect([...identifiedEntities('List all warehouses in the EU region.')]).toEqual([]);
  });
});

describe('EndpointIndex on the demo spec', () => {
  let spec: ApiSpec;
  beforeAll(async () => {
    spec = unwrap(await loadSpec(fs.readFileSync(path.join(DEMO_SPECS, 'harbor.yaml'), 'utf8'), 'harbor.yaml'));
  });

  it('tells a collection from one of its items by whether the task names an identifier', () => {
    const index = new EndpointIndex(spec);
    const top = (task: string) => index.retrieve(task, 1).map((e) => `${e.method.toUpperCase()} ${e.path}`)[0];
    expect(top('List the warehouses in the EU region.')).toBe('GET /warehouses');
    expect(top('Get the warehouse with id "wh_123".')).toBe('GET /warehouses/{warehouse_id}');
    expect(top('Delete the webhook with id "wh_9".')).toBe('DELETE /webhooks/{webhook_id}');
  });

  it('ranks every demo sample from its task alone, better than plain BM25, the same on every call', () => {
    const samples = unwrap(parseDataset(fs.readFileSync(DEMO_DATASET, 'utf8'), 'demo.json')).map((s, index) => ({ index, api: s.api, task: s.task, config: s.config }));
    const specs = new Map([['harbor', spec]]);
    const tuned = measureRecall(samples, specs);
    const plain = measureRecall(samples, specs, PLAIN_BM25);
    expect(tuned.samples.every((s) => s.rank !== null)).toBe(true);
    expect(tuned.recall['1']).toBeGreaterThan(plain.recall['1']);
    expect(measureRecall(samples, specs)).toEqual(tuned);
    // The rank reported is where the expected endpoint sits in the index's own ranking.
    const first = samples[0]!;
    const ranking = new EndpointIndex(spec).rank(first.task).map((r) => r.endpoint);
    expect(tuned.samples[0]?.rank).toBe(rankOf(ranking, expectedEndpoint(spec, first.config)));
  });
});
