import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './fixtures/cli/run-cli.js';
import { docsWithExamples } from './support/docs-examples.js';

/*
 * Every relative link of the README and docs/*.md leads somewhere: the file exists, and an anchor
 * (`#providers`, `providers.md#warm-up`) names a heading of that document, as GitHub makes them.
 * The README fits a first read, and no doc speaks of the project's issue numbers (CHANGELOG keeps history).
 */

const README_MAX_LINES = 400;

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens; repeats get -1, -2, …. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let code = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) code = !code;
    const heading = code ? null : /^#{1,6} (.*)$/.exec(line);
    if (!heading) continue;
    const base = (heading[1] ?? '')
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** The link targets of a document outside code: `[text](target)` and `![alt](target)`, with their lines. */
function linksOf(markdown: string): { target: string; line: number }[] {
  const links: { target: string; line: number }[] = [];
  let code = false;
  markdown.split('\n').forEach((line, i) => {
    if (line.startsWith('```')) code = !code;
    if (code) return;
    const text = line.replace(/`[^`]*`/g, '');
    for (const match of text.matchAll(/\]\(([^)\s]+)\)/g)) links.push({ target: match[1] as string, line: i + 1 });
  });
  return links;
}

describe("the docs' links", () => {
  it.each(docsWithExamples())('%s: every relative link and anchor resolves', (doc) => {
    const broken: string[] = [];
    for (const { target, line } of linksOf(readFileSync(join(REPO_ROOT, doc), 'utf8'))) {
      if (/^[a-z]+:/i.test(target)) continue;
      const [path = '', anchor] = target.split('#');
      const file = path === '' ? join(REPO_ROOT, doc) : join(REPO_ROOT, dirname(doc), path);
      if (!existsSync(file)) {
        broken.push(`${doc}:${line}: ${target}: no file ${relative(REPO_ROOT, file)}`);
        continue;
      }
      if (anchor === undefined) continue;
      if (!statSync(file).isFile() || !file.endsWith('.md') || !anchorsOf(readFileSync(file, 'utf8')).has(anchor)) {
        broken.push(`${doc}:${line}: ${target}: no heading #${anchor} in ${relative(REPO_ROOT, file)}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it(`the README is at most ${README_MAX_LINES} lines, and no doc names an issue by its number`, () => {
    expect(readFileSync(join(REPO_ROOT, 'README.md'), 'utf8').split('\n').length).toBeLessThanOrEqual(README_MAX_LINES);
    const numbered = docsWithExamples().flatMap((doc) =>
      readFileSync(join(REPO_ROOT, doc), 'utf8')
        .split('\n')
        .flatMap((line, i) => (/\bissues? #?\d+/i.test(line) ? [`${doc}:${i + 1}: ${line.trim()}`] : [])),
    );
    expect(numbered).toEqual([]);
  });
});
