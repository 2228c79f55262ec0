import { Agent, OpenAIResponsesModel, run, setTracingDisabled, tool } from '@openai/agents';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ForkEngine } from '../src/index.js';
import { startLocalServer, type LocalServer } from '../src/local-server/index.js';
import { forkTool } from '../src/openai-agents/index.js';

/*
 * The agent's own tools, run for its forks, in an OpenAI Agents SDK agent: the agent calls the fork
 * tool three times in one turn, and each fork calls one of the agent's function tools. They run on
 * this thread through the tool's `invoke` (the Agents SDK's parsing, its errorFunction for a bad
 * input), with the calling run's context; a tool that needs approval is denied and never runs.
 */

const KEY = 'fp-agents-tools-key-2b9e';

let server: LocalServer;
let engine: ForkEngine;
setTracingDisabled(true);

beforeAll(async () => {
  process.env.FORKPOOL_TEST_AGENTS_TOOLS_KEY = KEY;
  server = await startLocalServer({ port: 0, usage: 'openai' });
  engine = await ForkEngine.create({
    provider: { kind: 'openai', baseUrl: `${server.url}/v1`, apiKeyEnv: 'FORKPOOL_TEST_AGENTS_TOOLS_KEY' },
    threads: 1,
    spawnTools: ['fork'],
  });
});
afterAll(async () => {
  await engine?.close();
  await server?.close();
  delete process.env.FORKPOOL_TEST_AGENTS_TOOLS_KEY;
});

describe("forkTool() runs an OpenAI Agents SDK agent's own tools for its forks", () => {
  it('through invoke with the run’s context, its errorFunction for a bad input, and denies a tool that needs approval', async () => {
    const seen: { city: string; context: unknown; callId: string | undefined; signal: boolean }[] = [];
    let deployed = 0;
    const weather = tool({
      name: 'weather',
      description: 'The weather in a city.',
      parameters: z.object({ city: z.string() }),
      execute: async ({ city }, runContext, details) => {
        seen.push({
          city,
          context: runContext?.context,
          callId: details?.toolCall?.callId,
          signal: details?.signal instanceof AbortSignal,
        });
        return `sunny in ${city}`;
      },
      errorFunction: (_context, error) => `weather refused the call: ${error instanceof Error ? error.message : String(error)}`,
    });
    const deploy = tool({
      name: 'deploy',
      description: 'Deploys the service.',
      parameters: z.object({}),
      needsApproval: true,
      execute: async () => {
        deployed++;
        return 'deployed';
      },
    });
    const forks = forkTool({ engine, tools: [weather, deploy] });
    const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: KEY, fetch: forks.fetch });
    const agent = new Agent<{ tenant: string }>({
      name: 'lead',
      instructions: 'You are the main agent.',
      model: new OpenAIResponsesModel(client, 'gpt-4.1-mini'),
      tools: [weather, deploy, forks.tool],
    });
    const directives = [
      'CALL weather {"city":"Paris"}\nRECALL sunny in [A-Z][a-z]+',
      'CALL weather {"city":5}\nRECALL weather refused the call[^"]*',
      "CALL deploy {}\nRECALL needs a person[']s approval",
    ];
    const prompt = [...directives.map((directive) => `CALL fork ${JSON.stringify({ directive })}`), 'REPLY parent done'].join('\n');
    const answer = await run(agent, prompt, { maxTurns: 4, context: { tenant: 'acme' } });
    expect(answer.finalOutput).toBe('parent done');
    const outputs = answer.newItems
      .filter((item) => item.type === 'tool_call_output_item')
      .map((item) => String((item as { output: unknown }).output));
    expect(outputs).toHaveLength(3);

    expect(outputs[0]).toContain('sunny in Paris');
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ city: 'Paris', context: { tenant: 'acme' }, signal: true });
    expect(seen[0]?.callId).toBeTruthy();

    // The Agents SDK's parser refused the input; the tool's errorFunction worded it.
    expect(outputs[1]).toContain('weather refused the call');

    expect(outputs[2]).toContain("needs a person's approval");
    expect(deployed).toBe(0);
  });
});
