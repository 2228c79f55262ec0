import { createOpenAI } from '@ai-sdk/openai';
import { generateText, stepCountIs, tool } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { forkTool } from '../src/ai-sdk/index.js';
import { ForkEngine } from '../src/index.js';
import { startLocalServer, type LocalServer } from '../src/local-server/index.js';

/*
 * The agent's own tools, run for its forks: generateText with @ai-sdk/openai calls the fork tool
 * four times in one step, and each fork (on forkpool's pool, against the local server) calls one of
 * the agent's tools. The tools run on this thread through their own `execute`, as the AI SDK would
 * run them for the agent: the input checked against the tool's schema, the fork's conversation as
 * `messages`, an abort signal, the agent's context; a tool that needs approval is denied; a tool
 * with no execute fails its call, and the fork's answer says so.
 */

const KEY = 'fp-agent-tools-key-51c2';

/** A parent prompt whose step calls the fork tool once per directive, then answers. */
function promptOf(directives: readonly string[]): string {
  return [
    'Please remember MARKER-7D1E.',
    ...directives.map((directive) => `CALL fork ${JSON.stringify({ directive })}`),
    'REPLY parent done',
  ].join('\n');
}

let server: LocalServer;
let engine: ForkEngine;
beforeAll(async () => {
  process.env.FORKPOOL_TEST_AGENT_TOOLS_KEY = KEY;
  server = await startLocalServer({ port: 0, usage: 'openai' });
  engine = await ForkEngine.create({
    provider: {
      kind: 'ai-sdk',
      package: '@ai-sdk/openai',
      factory: 'createOpenAI',
      method: 'chat',
      model: 'gpt-4.1-mini',
      settings: { baseURL: `${server.url}/v1`, apiKey: { env: 'FORKPOOL_TEST_AGENT_TOOLS_KEY' } },
    },
    threads: 1,
    spawnTools: ['fork'],
  });
});
afterAll(async () => {
  await engine?.close();
  await server?.close();
  delete process.env.FORKPOOL_TEST_AGENT_TOOLS_KEY;
});

describe("forkTool() runs the agent's own tools for its forks", () => {
  it('through their execute (its last streamed value the result), checked by their schema, denied when they need approval, and says which it could not run', async () => {
    const weatherCalls: { city: string; toolCallId: string; messages: number; signal: boolean; context: unknown }[] = [];
    let deployed = 0;
    const tools = {
      weather: tool({
        description: 'The weather in a city.',
        inputSchema: z.object({ city: z.string() }),
        // An execute that streams preliminary results: the last is the tool's result.
        async *execute({ city }, { toolCallId, messages, abortSignal, experimental_context }) {
          weatherCalls.push({
            city,
            toolCallId,
            messages: messages.length,
            signal: abortSignal instanceof AbortSignal,
            context: experimental_context,
          });
          yield `looking up ${city}`;
          yield `sunny in ${city}`;
        },
      }),
      deploy: tool({
        description: 'Deploys the service.',
        inputSchema: z.object({}),
        needsApproval: true,
        execute: async () => {
          deployed++;
          return 'deployed';
        },
      }),
      // Declared to the model, run by nobody: the agent would hand its calls to a person.
      ask: tool({ description: 'Asks the user.', inputSchema: z.object({ question: z.string() }) }),
    };
    const fork = forkTool({ engine, model: 'gpt-4.1-mini', tools, context: { tenant: 'acme' } });
    const openai = createOpenAI({ baseURL: `${server.url}/v1`, apiKey: KEY });
    const answer = await generateText({
      model: openai.chat('gpt-4.1-mini'),
      tools: { ...tools, fork },
      experimental_context: { tenant: 'acme' },
      messages: [
        {
          role: 'user',
          content: promptOf([
            'CALL weather {"city":"Paris"}\nRECALL (looking up|sunny in) [A-Z][a-z]+',
            'CALL weather {"city":5}\nRECALL invalid input for weather[^"]*',
            "CALL deploy {}\nRECALL needs a person[']s approval",
            'CALL ask {"question":"which region?"}\nREPLY asked',
          ]),
        },
      ],
      stopWhen: stepCountIs(3),
    });
    expect(answer.text).toBe('parent done');
    const outputs = (answer.steps[0]?.toolResults ?? []).map((r) => String(r.output));
    expect(outputs).toHaveLength(4);

    // The streamed tool's last value is its result; its first never reached the fork.
    expect(outputs[0]).toContain('sunny in Paris');
    expect(outputs[0]).not.toContain('looking up Paris');
    expect(weatherCalls).toHaveLength(1);
    const [call] = weatherCalls;
    // The fork's own conversation: the agent's user message and the calling turn.
    expect(call).toMatchObject({ city: 'Paris', signal: true, context: { tenant: 'acme' } });
    expect(call?.messages).toBeGreaterThanOrEqual(2);
    expect(call?.toolCallId).not.toBe('');

    // The AI SDK's schema refused the bad input before execute ran.
    expect(outputs[1]).toMatch(/invalid input for weather/);

    // needsApproval: denied, never run.
    expect(outputs[2]).toContain("needs a person's approval");
    expect(deployed).toBe(0);

    // No execute: the call failed, and the tool's answer says so.
    expect(outputs[3]).toContain('asked');
    expect(outputs[3]).toMatch(/could not be run[\s\S]*ask \(the agent's tool has no execute/);
  });
});
