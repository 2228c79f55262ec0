import { createOpenAI } from '@ai-sdk/openai';
import { generateText, stepCountIs } from 'ai';
import { ForkEngine } from 'forkpool';
import { forkTool } from 'forkpool/ai-sdk';
import { startLocalServer } from 'forkpool/local-server';

// Offline: forkpool's simulator (a scripted model with OpenAI's cache rules) stands in for OpenAI.
const server = await startLocalServer({ port: 0, usage: 'openai' });
const baseURL = `${server.url}/v1`;
process.env.OPENAI_API_KEY ??= 'local'; // the simulator takes any key; a real one goes by its variable
const engine = await ForkEngine.create({
  provider: { kind: 'ai-sdk', package: '@ai-sdk/openai', factory: 'createOpenAI', method: 'chat', model: 'gpt-4.1-mini',
    mode: 'generate', settings: { baseURL, apiKey: { env: 'OPENAI_API_KEY' } } }, // the agent's model, as a descriptor
  spawnTools: ['fork'], // a fork does not see its siblings' directives
});
const system = 'You are a research agent. Fork yourself for independent questions.';
const fork = forkTool({ engine, model: 'gpt-4.1-mini', system });
const { text, steps } = await generateText({
  model: createOpenAI({ baseURL }).chat('gpt-4.1-mini'), system, tools: { fork }, stopWhen: stepCountIs(3),
  prompt: ['Where are sessions parsed, and where are forks seeded?', // the scripted model's lines:
    'CALL fork {"directive":"REPLY sessions: src/session/parse.ts"}', // two fork calls in one step,
    'CALL fork {"directive":"REPLY forks: src/fork/seed.ts"}', 'REPLY Both forks reported.'].join('\n'), // then the answer
});
for (const result of steps[0]?.toolResults ?? []) console.log(result.toolName, result.output);
console.log(text);
await engine.close();
await server.close();
