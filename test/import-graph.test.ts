import { describe, expect, it } from 'vitest';
import { importGraph } from '../scripts/import-graph.js';

/** Issue 35 item 6: no two files of main/ import each other, directly or round a circle, and no two folders do. */
describe("main/'s import graph", () => {
  const graph = importGraph();
  it('has no circle between files', () => {
    expect(graph.circles).toEqual([]);
  });
  it('has no circle between folders', () => {
    expect(graph.folderCircles).toEqual([]);
  });
  it('is read at all (the walk found the engine)', () => {
    expect(graph.files).toBeGreaterThan(150);
    expect(graph.arrows).toBeGreaterThan(graph.files);
  });
});
