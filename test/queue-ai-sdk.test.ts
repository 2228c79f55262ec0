import { describe, expect, it } from 'vitest';
import { jsonLines } from './fixtures/cli/run-cli.js';
import { queueHarness, within } from './support/queue-harness.js';

/*
 * A distributed run of an AI SDK session: the coordinator plans with the ai-sdk provider, each
 * `forkpool worker --provider ai-sdk:…` makes the model from @ai-sdk/openai in its own process (its
 * key from its own environment), against the local model server; a real redis-server between them.
 */

const KEY = 'fp-test-key-queue-ai-sdk-51c0';
const h = queueHarness(KEY, 'forkpool-queue-ai-sdk-');
const PROVIDER = 'ai-sdk:@ai-sdk/openai.chat/gpt-4.1-mini';

describe('forkpool run --queue with an AI SDK session', () => {
  it('two workers run the forks through @ai-sdk/openai; the results come back to the coordinator', async () => {
    const model = await h.modelServer({ usage: 'openai' });
    const provider = ['--provider', PROVIDER, '--base-url', `${model.url}/v1`, '--api-key-env', 'GEMINI_API_KEY'];
    await Promise.all([h.startWorker('w1', model.url, [], { provider }), h.startWorker('w2', model.url, [], { provider })]);
    const tasks = [1, 2, 3, 4].map((i) => ({ id: `t${i}`, directive: `REPLY fork ${i} done` }));
    const run = h.cli([
      'run',
      '--session',
      'examples/ai-sdk-session.json',
      '--tasks',
      h.writeTasks('ai-sdk', tasks),
      '--queue',
      h.queueUrl(),
      '--provider',
      PROVIDER,
      '--output-format',
      'json',
    ]);
    const { code } = await within('the coordinator', run.exited);
    expect(run.stderr()).not.toContain(KEY);
    expect(code).toBe(0);
    const summary = jsonLines(run.stdout()).at(-1) as {
      forks: { completed: number };
      results: { id: string; text: string }[];
      workers: { id: string }[];
    };
    expect(summary.forks.completed).toBe(4);
    expect(Object.fromEntries(summary.results.map((r) => [r.id, r.text]))).toEqual({
      t1: 'fork 1 done',
      t2: 'fork 2 done',
      t3: 'fork 3 done',
      t4: 'fork 4 done',
    });
    // Every request came through the Chat Completions route, with the workers' key.
    expect(model.requests.every((r) => r.route === 'chat.completions')).toBe(true);
  });
});
