// npm runs `prepare` after `npm install` in a checkout, and again when `npx forkpool` in that
// checkout installs the project's own bin into npx's cache. The second time dist/ is already
// built from these very sources: building it again would cost the first `npx forkpool` a whole
// build. So the build runs only when a source is newer than the last build this script made.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Written after each build this script runs: its time is the build's. */
const STAMP = 'dist/.prepared';
/** What the build reads: a change to any of them builds again. */
const INPUTS = ['src', 'workers', 'scripts', 'package.json', 'package-lock.json', 'tsconfig.json'];
/** What the build writes, or is not a source: never a reason to build again. */
const SKIPPED = new Set(['node_modules', 'bundle.generated.ts']);

function newestChange(path) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const name of readdirSync(path)) if (!SKIPPED.has(name)) newest = Math.max(newest, newestChange(join(path, name)));
  return newest;
}

const built = existsSync(STAMP) && existsSync('dist/src/cli/main.js') ? statSync(STAMP).mtimeMs : 0;
if (built > 0 && INPUTS.every((input) => newestChange(input) <= built)) {
  console.log('forkpool: dist/ is up to date with the sources: not built again');
  process.exit(0);
}
// npm's own CLI, the one running this script (npm_execpath), else the npm on the PATH.
const npm = process.env.npm_execpath;
const build = npm
  ? spawnSync(process.execPath, [npm, 'run', 'build'], { stdio: 'inherit' })
  : spawnSync('npm', ['run', 'build'], { stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);
writeFileSync(STAMP, '');
