import { findProvider, providerKinds } from '../model/providers/index.js';
import { shapeFormats } from '../shapes/registry.js';
import { EXIT_CODES_HELP } from './exit-codes.js';
import { examplesOf } from './flags.js';

/** The top-level help: the commands, then the shapes and providers as their registries list them (never a list of its own). */
export function topHelp(): string {
  const [first, ...others] = shapeFormats();
  const providers = providerKinds().map((kind) => `  ${kind.padEnd(20)}${findProvider(kind)?.shapes.join(', ') ?? ''}`);
  return `forkpool — fan out forks of an agent conversation over worker threads, sharing one prompt cache

Usage:
  forkpool run --session FILE --tasks FILE|- [options]  fan out one fork per task line
  forkpool prompt TEXT [--session FILE] [options]        a headless parent agent that can fork
  forkpool serve [options]                               the local model server (simulated)
  forkpool worker --queue URL [options]                  run the forks of distributed runs
  forkpool cancel --queue URL RUN [TASK]                 cancel a distributed run, or one fork
  forkpool convert SESSION --to SHAPE                    convert a session to another shape
  forkpool import FILE [--out FILE]                      another agent's transcript as a session
  forkpool transcript FILE [--json]                      a fork's transcript, for a person
  forkpool report RESULTS [--html FILE]                  a finished run's summary, or its page
  forkpool bench [--quick]                               benchmarks (from a source checkout)
  forkpool <command> --help                              its flags, exit codes and examples
  forkpool --version

Session shapes (a session's "format"; ${JSON.stringify(first)}, the default, needs none):
  ${[first, ...others].join(', ')}

Providers (--provider NAME; ai-sdk is given as ai-sdk:PACKAGE/MODEL) and the shapes each speaks:
${providers.join('\n')}

Without --provider (and, for a Gemini session, without GEMINI_API_KEY) everything runs offline on
the built-in local server (local): a scripted, simulated model with a realistic prefix cache.

${EXIT_CODES_HELP}

${examplesOf([
  [
    'forkpool run --session examples/session.json --tasks examples/research.jsonl --workspace .',
    'the quick start: eight forks of the example session, offline',
  ],
  ['forkpool run --help', "run's flags"],
])}`;
}
