// Bundles the fork worker's entry point (dist/workers/fork-worker.js, as tsc wrote it) into one
// file in its place. Every pool thread loads it before its first fork: one file of ~200 modules
// (forkpool's own and zod's) compiles and links in about half the CPU of the modules one by one.
// The packages a run may load (the provider SDKs) stay imports, loaded at that run's first call;
// so does the local simulator's thread starter, which the main thread alone calls and which finds
// its worker relative to its own place in dist/. Run by `npm run build`, after tsc.
import { readFileSync } from 'node:fs';
import { build } from 'esbuild';

const root = new URL('..', import.meta.url);
const entry = new URL('dist/workers/fork-worker.js', root).pathname;
const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'));

// zod is bundled: a thread's zod is its own whatever the embedder's is (schemas never cross threads).
const external = [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.peerDependencies ?? {})].filter((name) => name !== 'zod');

/** Modules the bundle leaves as imports of their compiled files beside it. */
const KEPT_APART = [{ filter: /\/local-server\/thread\.js$/, path: '../src/local-server/thread.js' }];

await build({
  entryPoints: [entry],
  outfile: entry,
  allowOverwrite: true,
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: true,
  legalComments: 'none',
  logLevel: 'warning',
  plugins: [
    {
      name: 'kept-apart',
      setup(b) {
        for (const kept of KEPT_APART) b.onResolve({ filter: kept.filter }, () => ({ path: kept.path, external: true }));
      },
    },
    {
      // The declared packages stay imports; one that is neither a dependency nor a peer would be copied into the bundle unseen.
      name: 'declared-packages',
      setup(b) {
        b.onResolve({ filter: /^[^./]/ }, (args) => {
          const name = args.path.startsWith('@') ? args.path.split('/').slice(0, 2).join('/') : args.path.split('/')[0];
          if (args.path.startsWith('node:') || name === 'zod') return undefined;
          if (external.includes(name)) return { path: args.path, external: true };
          return { errors: [{ text: `${args.path} (imported by ${args.importer}) is not a dependency of forkpool` }] };
        });
      },
    },
  ],
});
