import { Agent, OpenAIResponsesModel, run, setTracingDisabled } from '@openai/agents';
import { ForkEngine } from 'forkpool';
import { startLocalServer } from 'forkpool/local-server';
import { forkTool } from 'forkpool/openai-agents';
import OpenAI from 'openai';

// Offline: forkpool's simulator (a scripted model with OpenAI's cache rules) stands in for OpenAI.
const server = await startLocalServer({ port: 0, usage: 'openai' });
const baseURL = `${server.url}/v1`;
process.env.OPENAI_API_KEY ??= 'local'; // the simulator takes any key; a real one goes by its variable
setTracingDisabled(true); // offline: the Agents SDK would export its traces to OpenAI
const engine = await ForkEngine.create({
  // the forks' model calls: the Responses API, one response per call, as the agent's run() makes its own
  provider: { kind: 'openai', baseUrl: baseURL, mode: 'generate' },
  spawnTools: ['fork'], // a fork does not see its siblings' directives
});
const forks = forkTool({ engine });
// The tool's fetch keeps each request the agent sends and what its model answered: a fork starts from there.
const client = new OpenAI({ baseURL, fetch: forks.fetch });
const agent = new Agent({
  name: 'researcher', instructions: 'You are a research agent. Fork yourself for independent questions.',
  model: new OpenAIResponsesModel(client, 'gpt-4.1-mini'), tools: [forks.tool],
});
const result = await run(agent, ['Where are sessions parsed, and where are forks seeded?', // the scripted model's lines:
  'CALL fork {"directive":"REPLY sessions: src/session/parse.ts"}', // two fork calls in one turn,
  'CALL fork {"directive":"REPLY forks: src/fork/seed.ts"}', 'REPLY Both forks reported.'].join('\n')); // then the answer
for (const item of result.newItems) if (item.type === 'tool_call_output_item') console.log('fork', item.output);
console.log(result.finalOutput);
await engine.close();
await server.close();
