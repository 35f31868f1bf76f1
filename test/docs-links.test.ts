import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, tempDir } from './support/paths.js';

// README.md is the front door and docs/ holds one page per concept: every relative link and
// image between them must resolve (a file, and for a page's #anchor one of its headings).

const README_MAX_LINES = 320;

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
function slug(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .trim()
    .replace(/\s/g, '-');
}

/** The text outside fenced code blocks, with inline code spans blanked (`ids[0](x)` is no link). */
function prose(markdown: string): string[] {
  let fenced = false;
  return markdown.split('\n').map((line) => {
    if (/^\s*```/.test(line)) {
      fenced = !fenced;
      return '';
    }
    return fenced ? '' : line.replace(/`[^`]*`/g, (code) => ' '.repeat(code.length));
  });
}

function anchorsOf(file: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  let fenced = false;
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    const heading = fenced ? undefined : /^#{1,6}\s+(.*?)\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const base = slug(heading);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

/** `file:line: target` for every relative link or image in `files` that does not resolve. */
export function brokenLinks(files: readonly string[]): string[] {
  const broken: string[] = [];
  for (const file of files) {
    prose(fs.readFileSync(file, 'utf8')).forEach((line, i) => {
      for (const match of line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
        const target = match[1] ?? '';
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
        const [rawPath = '', anchor] = target.split('#');
        const resolved = rawPath === '' ? file : path.resolve(path.dirname(file), decodeURIComponent(rawPath));
        const where = `${path.relative(REPO_ROOT, file)}:${i + 1}: ${target}`;
        if (!fs.existsSync(resolved)) broken.push(where);
        else if (anchor !== undefined && resolved.endsWith('.md') && !anchorsOf(resolved).has(anchor)) broken.push(`${where} (no such heading)`);
      }
    });
  }
  return broken;
}

const pages = (): string[] => [
  path.join(REPO_ROOT, 'README.md'),
  ...fs
    .readdirSync(path.join(REPO_ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => path.join(REPO_ROOT, 'docs', f)),
];

describe('README.md and docs/', () => {
  it('every relative link and image resolves, anchors included', () => {
    expect(pages().length).toBeGreaterThan(5);
    expect(brokenLinks(pages())).toEqual([]);
  });

  it(`README.md stays a front door (at most ${README_MAX_LINES} lines) and links every page of docs/`, () => {
    const readme = fs.readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
    expect(readme.split('\n').length).toBeLessThanOrEqual(README_MAX_LINES);
    for (const page of pages().slice(1)) expect(readme, path.basename(page)).toContain(`](docs/${path.basename(page)}`);
  });

  it('the check finds a missing file, a missing heading, and not a link inside code', () => {
    const dir = tempDir('wapii-docs-');
    fs.writeFileSync(path.join(dir, 'a.md'), '# A page\n\n## Some `code` here: yes\n');
    const b = path.join(dir, 'b.md');
    fs.writeFileSync(
      b,
      ['[ok](a.md)', '[ok](a.md#some-code-here-yes)', '[gone](missing.md)', '[no heading](a.md#nope)', '`[not a link](missing.md)`', '```', '[nor this](missing.md)', '```', '[web](https://example.com/x)'].join('\n'),
    );
    expect(brokenLinks([b]).map((l) => l.replace(/^.*?:(\d+): /, '$1: '))).toEqual(['3: missing.md', '4: a.md#nope (no such heading)']);
  });
});
