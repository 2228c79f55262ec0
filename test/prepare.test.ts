import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

/*
 * `prepare` (npm install in a checkout, and again when `npx forkpool` installs the checkout's own
 * bin) builds only when a source changed since its last build: the first `npx forkpool` after
 * `npm install` does not build the project again. Run on a project of its own whose build counts.
 */

const dir = mkdtempSync(join(tmpdir(), 'forkpool-prepare-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const build = `import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
appendFileSync('builds.log', 'built\\n');
mkdirSync('dist/src/cli', { recursive: true });
writeFileSync('dist/src/cli/main.js', '');`;

function prepare(): { status: number | null; stdout: string; builds: number } {
  const run = spawnSync(process.execPath, ['scripts/prepare.mjs'], { cwd: dir, encoding: 'utf8' });
  const builds = readFileSync(join(dir, 'builds.log'), 'utf8').split('\n').filter(Boolean).length;
  return { status: run.status, stdout: run.stdout, builds };
}

describe('npm prepare', () => {
  it('builds a fresh checkout once, skips a build of the same sources, builds again after a change', () => {
    mkdirSync(join(dir, 'scripts'));
    mkdirSync(join(dir, 'src'));
    copyFileSync('scripts/prepare.mjs', join(dir, 'scripts/prepare.mjs'));
    writeFileSync(join(dir, 'scripts/build.mjs'), build);
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'p', private: true, scripts: { build: 'node scripts/build.mjs' } }));
    writeFileSync(join(dir, 'src/a.ts'), 'export {};\n');
    writeFileSync(join(dir, 'builds.log'), '');

    expect(prepare()).toMatchObject({ status: 0, builds: 1 });
    // npx forkpool's install runs prepare again: the same sources, no build.
    expect(prepare()).toEqual({ status: 0, stdout: 'forkpool: dist/ is up to date with the sources: not built again\n', builds: 1 });
    // A source edited after the build (a minute later, past any clock's resolution): built again.
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(dir, 'src/a.ts'), later, later);
    expect(prepare()).toMatchObject({ status: 0, builds: 2 });
  });
});
