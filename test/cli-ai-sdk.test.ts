import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonLines, runCli } from './fixtures/cli/run-cli.js';
import { startServe, type ServeProcess } from './fixtures/cli/serve.js';

/*
 * `forkpool run --provider ai-sdk:PACKAGE[.METHOD]/MODEL` as a user runs it: the CLI in its own
 * process, an AI SDK session (examples/ai-sdk-session.json), @ai-sdk/openai from this project, and
 * forkpool serve in another process as the model's server.
 */

const KEY = 'fp-cli-ai-sdk-key-2b7e';
const SESSION = 'examples/ai-sdk-session.json';
let serve: ServeProcess;

beforeAll(async () => {
  serve = await startServe(['--usage', 'openai']);
});
afterAll(async () => {
  await serve?.stop();
});

describe('forkpool run --provider ai-sdk:…', () => {
  it('runs the example session’s research forks through @ai-sdk/openai’s Chat Completions model, its tools on the workspace, the prefix from the cache', async () => {
    const provider = 'ai-sdk:@ai-sdk/openai.chat/gpt-4.1-mini';
    const run = await runCli(
      [
        'run',
        '--session',
        SESSION,
        '--tasks',
        'examples/research.jsonl',
        '--workspace',
        '.',
        '--provider',
        provider,
        '--base-url',
        `${serve.url}/v1`,
        '--api-key-env',
        'FORKPOOL_CLI_AI_SDK_KEY',
        '--output-format',
        'json',
      ],
      {
        env: { FORKPOOL_CLI_AI_SDK_KEY: KEY },
      },
    );
    expect(run.stderr).not.toContain(KEY);
    expect(run.code).toBe(0);
    const summary = jsonLines(run.stdout).at(-1) as {
      forks: { completed: number; total: number };
      efficiency: number;
      toolCalls: number;
      results: { id: string; status: string }[];
    };
    expect(summary.forks).toMatchObject({ total: 8, completed: 8 });
    expect(summary.toolCalls).toBeGreaterThan(0);
    expect(summary.efficiency).toBeGreaterThanOrEqual(0.9);
    expect(run.stdout).not.toContain(KEY);
  });

  it('names what is wrong: an ai-sdk session without an AI SDK provider, another shape with one, a provider without a model', async () => {
    const none = await runCli(['run', '--session', SESSION, '--tasks', 'examples/research.jsonl']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('it runs through an AI SDK provider package of your project: --provider ai-sdk:PACKAGE[.METHOD]/MODEL');
    const other = await runCli([
      'run',
      '--session',
      'examples/openai-session.json',
      '--tasks',
      'examples/research.jsonl',
      '--provider',
      'ai-sdk:@ai-sdk/openai/gpt-4.1-mini',
    ]);
    expect(other.code).toBe(2);
    expect(other.stderr).toContain(
      'takes a session in the Vercel AI SDK\'s shape ("format": "ai-sdk"), but the session is in OpenAI Chat Completions\' shape',
    );
    const bare = await runCli(['run', '--session', SESSION, '--tasks', 'examples/research.jsonl', '--provider', 'ai-sdk:@ai-sdk/openai']);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain('--provider ai-sdk:@ai-sdk/openai: --provider ai-sdk:PACKAGE[.METHOD]/MODEL');
  });

  it('names what the project lacks before anything runs, as a usage error: a method of the package, a variable its settings read', async () => {
    const method = await runCli([
      'run',
      '--session',
      SESSION,
      '--tasks',
      'examples/research.jsonl',
      '--provider',
      'ai-sdk:@ai-sdk/openai.nosuch/gpt-4.1-mini',
    ]);
    expect(method.code).toBe(2);
    expect(method.stderr).toBe(
      "forkpool: --provider ai-sdk:@ai-sdk/openai.nosuch/gpt-4.1-mini: @ai-sdk/openai's createOpenAI() has no method nosuch\n",
    );
    const variable = await runCli([
      'prompt',
      'REPLY hi',
      '--session',
      SESSION,
      '--provider',
      'ai-sdk:@ai-sdk/openai/gpt-4.1-mini',
      '--api-key-env',
      'FORKPOOL_UNSET_AI_SDK_KEY',
    ]);
    expect(variable.code).toBe(2);
    expect(variable.stderr).toContain('FORKPOOL_UNSET_AI_SDK_KEY, which is not set');
    expect(variable.stdout).toBe('');
  });
});
