import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, jsonLines, runCli } from './fixtures/cli/run-cli.js';
import { runNode } from './support/example.js';
import { startServe, type ServeProcess } from './fixtures/cli/serve.js';

/*
 * The AI SDK is the user's: `ai` and the provider package are resolved from the project the CLI
 * runs in, not from forkpool's folder. A project of its own (installed from the npm registry) holds
 * @ai-sdk/mistral, which forkpool's own dependencies do not, with `ai` 7 on Node 22 and later (it
 * needs them) and `ai` 6 on Node 20; the CLI runs there against forkpool serve in another process.
 */

const NODE_MAJOR = Number(process.versions.node.split('.')[0]);
const [AI, MISTRAL, OPENAI] = NODE_MAJOR >= 22 ? ['~7.0.173', '~4.0.87', '~4.0.118'] : ['~6.0.325', '~3.0.68', '~3.0.141'];
const KEY = 'fp-project-key-7d21';
const project = mkdtempSync(join(tmpdir(), 'forkpool-ai-sdk-project-'));
let serve: ServeProcess;

/** An AI SDK agent of the project's own, with forkTool: forkpool imported from its build, `ai` and @ai-sdk/openai from the project. */
const AGENT = `import { createOpenAI } from '@ai-sdk/openai';
import { generateText, stepCountIs } from 'ai';
import { ForkEngine } from ${JSON.stringify(`${REPO_ROOT}dist/src/index.js`)};
import { forkTool } from ${JSON.stringify(`${REPO_ROOT}dist/src/ai-sdk/index.js`)};
const baseURL = process.argv[2];
const engine = await ForkEngine.create({
  provider: { kind: 'ai-sdk', package: '@ai-sdk/openai', factory: 'createOpenAI', method: 'chat', model: 'gpt-4.1-mini', mode: 'generate', settings: { baseURL, apiKey: { env: 'PROJECT_OPENAI_KEY' } } },
  spawnTools: ['fork'],
});
const fork = forkTool({ engine, model: 'gpt-4.1-mini', system: 'You are the agent.' });
const { text, steps } = await generateText({
  model: createOpenAI({ baseURL, apiKey: process.env.PROJECT_OPENAI_KEY }).chat('gpt-4.1-mini'),
  system: 'You are the agent.',
  tools: { fork },
  prompt: 'CALL fork {"directive":"REPLY forked in the project"}\\nREPLY agent done',
  stopWhen: stepCountIs(3),
});
console.log(JSON.stringify({ text, outputs: steps[0].toolResults.map((r) => r.output) }));
await engine.close();
`;

beforeAll(async () => {
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'an-agent', private: true, type: 'module' }));
  await promisify(execFile)(
    'npm',
    ['install', '--no-audit', '--no-fund', '--no-package-lock', `ai@${AI}`, `@ai-sdk/mistral@${MISTRAL}`, `@ai-sdk/openai@${OPENAI}`],
    { cwd: project, timeout: 180_000 },
  );
  copyFileSync(join(REPO_ROOT, 'examples/ai-sdk-session.json'), join(project, 'session.json'));
  writeFileSync(join(project, 'agent.mjs'), AGENT);
  writeFileSync(join(project, 'tasks.jsonl'), '{"id":"a","directive":"REPLY alpha done"}\n{"id":"b","directive":"REPLY beta done"}\n');
  serve = await startServe();
}, 240_000);
afterAll(async () => {
  await serve?.stop();
  rmSync(project, { recursive: true, force: true });
});

describe("an AI SDK provider from the user's project", () => {
  it(`runs the forks through @ai-sdk/mistral and ai ${AI} installed in the project (forkpool has neither that package nor, on Node 22+, that ai)`, async () => {
    expect(existsSync(join(REPO_ROOT, 'node_modules/@ai-sdk/mistral'))).toBe(false);
    const run = await runCli(
      [
        'run',
        '--session',
        'session.json',
        '--tasks',
        'tasks.jsonl',
        '--provider',
        'ai-sdk:@ai-sdk/mistral/mistral-large-latest',
        '--base-url',
        `${serve.url}/v1`,
        '--api-key-env',
        'PROJECT_MISTRAL_KEY',
        '--output-format',
        'json',
      ],
      { cwd: project, env: { PROJECT_MISTRAL_KEY: KEY } },
    );
    expect(run.stderr).not.toContain(KEY);
    expect(run.code).toBe(0);
    const summary = jsonLines(run.stdout).at(-1) as { results: { id: string; status: string; text: string }[] };
    expect(Object.fromEntries(summary.results.map((r) => [r.id, r.text]))).toEqual({ a: 'alpha done', b: 'beta done' });
  });

  it(`an agent of the project's own (ai ${AI}) forks through forkTool`, async () => {
    const run = await runNode(['agent.mjs', `${serve.url}/v1`], { cwd: project, env: { PROJECT_OPENAI_KEY: KEY } });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ text: 'agent done', outputs: ['forked in the project'] });
  });

  it('a package the project does not have is named before anything runs', async () => {
    const run = await runCli(
      ['run', '--session', 'session.json', '--tasks', 'tasks.jsonl', '--provider', 'ai-sdk:@ai-sdk/groq/llama-3.3-70b'],
      { cwd: project },
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`@ai-sdk/groq is not installed in ${project}: install it there (npm install @ai-sdk/groq)`);
    expect(run.stdout).toBe('');
  });
});
