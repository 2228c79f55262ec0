#!/usr/bin/env node
/*
 * Installs the Debian packages the test suite needs when they are missing, before vitest starts
 * (`npm test` runs this first): redis-server for the distributed-run tests, openssl for the test
 * certificates of TLS Redis, chromium for the live page's browser tests. Where it cannot install (not root, no apt-get) it stops at once with one
 * line naming the package and the command. Plain JavaScript, so that it runs before anything is built.
 */
import { spawnSync } from 'node:child_process';

/** Each command a test spawns, and the Debian package that carries it. */
const NEEDED = [
  { command: 'redis-server', pkg: 'redis-server' },
  { command: 'openssl', pkg: 'openssl' },
  // The live page's tests drive it with playwright-core (which downloads no browser here).
  { command: 'chromium', pkg: 'chromium' },
];
// apt-get's update and install each get this long: a mirror that never answers fails the run, it does not hang it.
const APT_TIMEOUT_MS = 10 * 60_000;

const onPath = (command) => spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;

const missing = NEEDED.filter(({ command }) => !onPath(command)).map(({ pkg }) => pkg);
if (missing.length === 0) process.exit(0);

const install = `apt-get install -y ${missing.join(' ')}`;
const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
if (!isRoot || !onPath('apt-get')) {
  console.error(`forkpool tests need ${missing.join(', ')} (Debian): install ${missing.length > 1 ? 'them' : 'it'} with \`sudo apt-get update && sudo ${install}\`, then run npm test again`);
  process.exit(1);
}

console.error(`forkpool tests: installing ${missing.join(', ')} with apt-get (Debian packages the tests need)`);
const apt = (args) => {
  const result = spawnSync('apt-get', args, {
    stdio: ['ignore', 'ignore', 'inherit'],
    timeout: APT_TIMEOUT_MS,
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  if (result.status === 0) return;
  const why = result.error ? result.error.message : result.signal ? `ended by ${result.signal}` : `exit code ${result.status}`;
  console.error(`forkpool tests: \`apt-get ${args.join(' ')}\` failed (${why}); install ${missing.join(', ')} by hand: ${install}`);
  process.exit(1);
};
apt(['update', '-q']);
apt(['install', '-y', '-q', '--no-install-recommends', ...missing]);
for (const pkg of missing) {
  const { command } = NEEDED.find((n) => n.pkg === pkg);
  if (!onPath(command)) {
    console.error(`forkpool tests: ${pkg} installed, but \`${command}\` is still not on PATH`);
    process.exit(1);
  }
}
