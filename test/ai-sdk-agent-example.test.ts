import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './fixtures/cli/run-cli.js';
import { blockAfter, runExample } from './support/example.js';

/*
 * docs/embedding.md's AI SDK example is examples/ai-sdk-agent.ts, shown verbatim, and it runs as written in
 * a process of its own (forkpool imported by its name, as a user's code imports it; `npm test`
 * builds dist first): a generateText agent whose model calls forkTool twice, offline.
 */

const EXAMPLE = 'examples/ai-sdk-agent.ts';

describe("docs/embedding.md's AI SDK agent example", () => {
  it('is examples/ai-sdk-agent.ts, word for word', () => {
    expect(blockAfter('docs/embedding.md', 'This is `examples/ai-sdk-agent.ts`')).toBe(readFileSync(`${REPO_ROOT}${EXAMPLE}`, 'utf8'));
  });

  it('runs as written: both forks answer through the tool, then the agent', async () => {
    const run = await runExample(EXAMPLE);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('fork sessions: src/session/parse.ts\nfork forks: src/fork/seed.ts\nBoth forks reported.\n');
  });
});
