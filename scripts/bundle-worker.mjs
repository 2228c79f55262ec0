// Bundles the fork worker's entry point (dist/workers/fork-worker.js, as tsc wrote it) into one
// file in its place. Every pool thread loads it before its first fork: one file of forkpool's
// modules compiles and links in about half the CPU of the modules one by one. The packages a run
// may load (the provider SDKs) stay imports, loaded at that run's first call; so does the local
// simulator's thread starter, which the main thread alone calls and which finds its worker relative
// to its own place in dist/, and so do the modules a thread imports only for a rare feature, which
// take zod. Run by `npm run build`, after tsc.
import { readFileSync } from 'node:fs';
import { build } from 'esbuild';

const root = new URL('..', import.meta.url);
const entry = new URL('dist/workers/fork-worker.js', root).pathname;
const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'));

const external = [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.peerDependencies ?? {})];

/**
 * Modules the bundle leaves as imports of their compiled files beside it. A `lazy` one takes zod
 * and must stay an `await import()`: a thread loads it only for that feature (a fork's output
 * schema, continuing from a transcript), and zod with it.
 */
const KEPT_APART = [
  { module: 'local-server/thread.js' },
  { module: 'fork/output-check.js', lazy: true },
  { module: 'transcript/read.js', lazy: true },
];

/*
 * zod must not be in a thread's module graph: with it (and the schema modules that bring it) a
 * thread's load of this file cost ~120 ms of CPU, without it ~35, and a thread never checks a
 * session or an option (the main thread does). The shapes' schemas, the price table's and the fork
 * tools' are the main thread's (docs/architecture.md, "No zod in a fork's thread"); an import that
 * brings zod back, directly or through a kept-apart module imported statically, fails the build.
 */
const isZod = (path) => path === 'zod' || path.startsWith('zod/');

const result = await build({
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
  metafile: true,
  plugins: [
    {
      name: 'kept-apart',
      setup(b) {
        for (const kept of KEPT_APART) {
          // Imported as ../<folder>/<file> from src/; the bundle, in dist/workers/, imports dist/src/<module>.
          const filter = new RegExp(`/${kept.module.replaceAll('.', '\\.')}$`);
          b.onResolve({ filter }, (args) =>
            kept.lazy && args.kind !== 'dynamic-import'
              ? { errors: [{ text: `${args.path} (imported by ${args.importer}) takes zod: import it with await import() where it is needed` }] }
              : { path: `../src/${kept.module}`, external: true },
          );
        }
      },
    },
    {
      // The declared packages stay imports; one that is neither a dependency nor a peer would be copied into the bundle unseen.
      name: 'declared-packages',
      setup(b) {
        b.onResolve({ filter: /^[^./]/ }, (args) => {
          const name = args.path.startsWith('@') ? args.path.split('/').slice(0, 2).join('/') : args.path.split('/')[0];
          if (isZod(args.path)) {
            return { errors: [{ text: `${args.importer} imports zod, which a fork's thread must not load: zod stays on the main thread's side (scripts/bundle-worker.mjs says why)` }] };
          }
          if (args.path.startsWith('node:')) return undefined;
          if (external.includes(name)) return { path: args.path, external: true };
          return { errors: [{ text: `${args.path} (imported by ${args.importer}) is not a dependency of forkpool` }] };
        });
      },
    },
  ],
});

// What the rule above cannot see: zod's own modules in the bundle, by any path.
const inlined = Object.keys(result.metafile.inputs).filter((input) => /(^|\/)node_modules\/zod\//.test(input));
if (inlined.length > 0) throw new Error(`the fork worker's bundle holds zod (${inlined[0]}, …): a thread must not load zod`);
