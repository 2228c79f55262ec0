import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './fixtures/cli/run-cli.js';
import { blockAfter, runExample } from './support/example.js';

/*
 * docs/embedding.md's OpenAI Agents SDK example is examples/openai-agents-agent.ts, shown verbatim, and it
 * runs as written in a process of its own (forkpool imported by its name; `npm test` builds dist
 * first): an Agents SDK agent on its own Responses model whose model calls forkTool twice, offline.
 */

const EXAMPLE = 'examples/openai-agents-agent.ts';

describe("docs/embedding.md's OpenAI Agents SDK example", () => {
  it('is examples/openai-agents-agent.ts, word for word', () => {
    expect(blockAfter('docs/embedding.md', 'This is `examples/openai-agents-agent.ts`')).toBe(
      readFileSync(`${REPO_ROOT}${EXAMPLE}`, 'utf8'),
    );
  });

  it('runs as written: both forks answer through the tool, then the agent, and nothing is sent anywhere else', async () => {
    const run = await runExample(EXAMPLE);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('fork sessions: src/session/parse.ts\nfork forks: src/fork/seed.ts\nBoth forks reported.\n');
  });
});
