/**
 * The ai-sdk section's agent on the OpenAI Agents SDK (variants agents-sdk and agents-forkpool of
 * bench/ai-sdk.ts, which measures them as it does the AI SDK's): an `Agent` on the Agents SDK's own
 * Responses model (`OpenAIResponsesModel` over the official `openai` client, against the local
 * server's Responses route), its instructions the conversation's system prompt, its input the
 * earlier turns and the message whose lines make the scripted model call the tool `fork` n times
 * in one step, `run(agent, input, { maxTurns: 3 })`. Variants:
 *   agents-sdk       the tool's `execute` runs its fork itself, as a user would write it without
 *                    forkpool: `run()` of the same agent in this process (the Agents SDK runs a
 *                    step's function calls at once), its input the agent's input (what the user
 *                    gave `run`; a tool sees no conversation) + its own call + a placeholder result
 *                    for it + the directive as a user message.
 *   agents-forkpool  forkpool's Agents SDK `forkTool` (dist/src/openai-agents) on a ForkEngine with
 *                    the openai provider, the agent's client given the tool's fetch: the step's
 *                    calls are one fan-out of the recorded request + the model's output items,
 *                    parent-warm, in worker threads.
 * The fork tool's parameters are the same JSON schema both ways, so both agents send the same bytes.
 */
import type { AgentInputItem, RunResult } from '@openai/agents';
import type { ForkResult } from '../dist/src/index.js';
import {
  type Agent,
  type AiSdkJob,
  type Conversation,
  DESCRIPTION,
  DIRECTIVE_DESCRIPTION,
  type ForkFigures,
  indexOf,
  KEY,
  KEY_ENV,
  MODEL,
  PLACEHOLDER,
  type Span,
  timed,
} from './ai-sdk.js';

const PARAMETERS = {
  type: 'object' as const,
  properties: { directive: { type: 'string', description: DIRECTIVE_DESCRIPTION } },
  required: ['directive'],
  additionalProperties: false as const,
};

/** A run's prompt and cached tokens, over its model calls. */
function tokensOf(result: Pick<RunResult<undefined, never>, 'rawResponses'>): { promptTokens: number; cachedTokens: number } {
  let promptTokens = 0;
  let cachedTokens = 0;
  for (const response of result.rawResponses) {
    promptTokens += response.usage.inputTokens;
    for (const details of response.usage.inputTokensDetails) cachedTokens += details.cached_tokens ?? 0;
  }
  return { promptTokens, cachedTokens };
}

export async function createAgentsSdkAgent(job: AiSdkJob): Promise<Agent> {
  const agents = await import('@openai/agents');
  const { default: OpenAI } = await import('openai');
  // Offline: the Agents SDK would export its traces to OpenAI.
  agents.setTracingDisabled(true);
  const baseURL = `${job.url.replace(/\/+$/, '')}/v1`;
  let span: Span | undefined;
  let forks: ForkFigures[] = [];
  // The earlier turns as a previous run's history gives them: the model's messages keep their ids
  // (forkpool's openai-responses session takes an assistant message with content parts only as the
  // response output it, id included).
  const inputOf = (c: Conversation): AgentInputItem[] =>
    c.messages.map((m, i) =>
      m.role === 'assistant' ? { ...agents.assistant(String(m.content)), id: `msg_bench_${i}` } : agents.user(String(m.content)),
    );
  const agentOf = (c: Conversation, client: InstanceType<typeof OpenAI>, fork: ReturnType<typeof agents.tool>) =>
    new agents.Agent({ name: 'lead', instructions: c.system, model: new agents.OpenAIResponsesModel(client, MODEL), tools: [fork] });

  const agentRun = async (c: Conversation, agent: ReturnType<typeof agentOf>): Promise<Awaited<ReturnType<Agent['run']>>> => {
    const answer = await agents.run(agent, inputOf(c), { maxTurns: 3 });
    return {
      text: String(answer.finalOutput ?? ''),
      outputs: answer.newItems.filter((item) => item.type === 'tool_call_output_item').map((item) => (item as { output: unknown }).output),
      forks,
      agent: tokensOf(answer),
    };
  };
  const current = (): Span => {
    if (span === undefined) throw new Error('a fork call outside an agent run');
    return span;
  };

  if (job.variant === 'agents-sdk') {
    const client = new OpenAI({ baseURL, apiKey: KEY });
    let conversation: Conversation | undefined;
    let agent: ReturnType<typeof agentOf> | undefined;
    // The hand-written fork: the agent's input, its own call, a placeholder result, the directive.
    const fork = agents.tool({
      name: 'fork',
      description: DESCRIPTION,
      parameters: PARAMETERS,
      strict: true,
      execute: timed(current, async (input: unknown, _context: unknown, details?: { toolCall?: { callId: string } }): Promise<string> => {
        const { directive } = input as { directive: string };
        const callId = details?.toolCall?.callId ?? '';
        if (conversation === undefined || agent === undefined) throw new Error('a fork call outside an agent run');
        const result = await agents.run(agent, [
          ...inputOf(conversation),
          { type: 'function_call', callId, name: 'fork', arguments: JSON.stringify({ directive }), status: 'completed' },
          { type: 'function_call_result', callId, name: 'fork', status: 'completed', output: { type: 'text', text: PLACEHOLDER } },
          agents.user(directive),
        ]);
        const text = String(result.finalOutput ?? '');
        forks[indexOf(directive)] = { text, ...tokensOf(result) };
        return text;
      }) as never,
    });
    return {
      run: (c, s) => {
        span = s;
        forks = [];
        conversation = c;
        agent = agentOf(c, client, fork);
        return agentRun(c, agent);
      },
      close: async () => {},
    };
  }

  process.env[KEY_ENV] = KEY;
  const { ForkEngine } = await import('../dist/src/index.js');
  const { forkTool } = await import('../dist/src/openai-agents/index.js');
  const engine = await ForkEngine.create({
    // The agent's run() does not stream: its forks make their calls the same way.
    provider: { kind: 'openai', baseUrl: baseURL, apiKeyEnv: KEY_ENV, mode: 'generate' },
    spawnTools: ['fork'],
    threads: job.threads,
    concurrency: Math.max(...job.ns),
    timeoutMs: job.timeoutMs,
  });
  const pending = new Map<string, string>();
  const onResult = (r: ForkResult): void => {
    // A fork that did not complete shows in check() as its answer.
    const text = r.status === 'completed' ? r.text : `${r.status}: ${r.error.message}`;
    forks[indexOf(pending.get(r.id) ?? '')] = { text, promptTokens: r.usage.promptTokens, cachedTokens: r.usage.cachedTokens ?? 0 };
  };
  const made = forkTool({ engine, description: DESCRIPTION, fanOut: { onResult } });
  const client = new OpenAI({ baseURL, apiKey: KEY, fetch: made.fetch });
  const invoke = made.tool.invoke;
  // The span around the tool's invoke (what the runner calls): the call's directive noted for onResult.
  const fork: typeof made.tool = {
    ...made.tool,
    invoke: timed(current, (runContext: Parameters<typeof invoke>[0], input: string, details?: Parameters<typeof invoke>[2]) => {
      const callId = details?.toolCall?.callId;
      if (callId !== undefined) pending.set(callId, (JSON.parse(input) as { directive: string }).directive);
      return invoke(runContext, input, details);
    }) as typeof invoke,
  };
  return {
    run: (c, s) => {
      span = s;
      forks = [];
      pending.clear();
      return agentRun(c, agentOf(c, client, fork));
    },
    close: () => engine.close(),
  };
}
