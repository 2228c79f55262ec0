import { isMainThread, threadId } from 'node:worker_threads';
import { z } from 'zod';
import { defineTool, type AnthropicMessagesSession, type GeminiSession, type OpenAIChatSession, type Tool } from '../../src/index.js';

/** Filler that makes a prefix large enough to cache (the local server's minimum is 1,024 tokens). */
export function filler(words: number, seed = 'context'): string {
  return Array.from({ length: words }, (_, i) => `${seed}${i % 97}`).join(' ');
}

/** Calls observed by the test tools, with the thread they ran on. */
export interface ToolLog {
  calls: { tool: string; args: unknown; threadId: number; mainThread: boolean }[];
}

export function testTools(log: ToolLog): Tool[] {
  const record = (tool: string, args: unknown): void => {
    log.calls.push({ tool, args, threadId, mainThread: isMainThread });
  };
  return [
    defineTool({
      name: 'lookup',
      description: 'Looks a key up.',
      parameters: z.object({ key: z.string().min(1), limit: z.number().int().positive().optional() }),
      execute: (args) => {
        record('lookup', args);
        return { value: `value-of-${args.key}` };
      },
    }),
    defineTool({
      name: 'explode',
      description: 'Always throws.',
      parameters: z.object({}),
      execute: () => {
        record('explode', {});
        throw new Error('kaboom from the tool');
      },
    }),
    defineTool({
      name: 'deploy',
      description: 'Needs approval.',
      parameters: z.object({ target: z.string() }),
      approval: 'required',
      execute: (args) => {
        record('deploy', args);
        return { deployed: true };
      },
    }),
  ];
}

/** A parent session whose tools declare the test tools plus `agent`, with a marker only in its history. */
export function parentSession(tools: readonly Tool[], opts: { marker?: string; words?: number } = {}): GeminiSession {
  return {
    model: 'gemini-2.5-flash',
    systemInstruction: { parts: [{ text: `You are a research agent. ${filler(opts.words ?? 1500, 'sys')}` }] },
    tools: [
      {
        functionDeclarations: [
          ...tools.map((t) => t.declaration),
          { name: 'agent', description: 'Starts a sub-agent.', parametersJsonSchema: { type: 'object' } },
        ],
      },
    ],
    generationConfig: { temperature: 0.2, topP: 0.9 },
    history: [
      { role: 'user', parts: [{ text: `Look into the cache. Remember ${opts.marker ?? 'MARKER-0000'} for later.` }] },
      { role: 'model', parts: [{ text: 'I looked into it; the cache is keyed by prefix.' }] },
    ],
  };
}

/** The same parent in OpenAI Chat Completions' shape: a system message, function tools, a marker in the history. */
export function openAIChatSession(tools: readonly Tool[], opts: { marker?: string; words?: number } = {}): OpenAIChatSession {
  return {
    format: 'openai-chat',
    model: 'gpt-4.1-mini',
    messages: [
      { role: 'system', content: `You are a research agent. ${filler(opts.words ?? 1500, 'sys')}` },
      { role: 'user', content: `Look into the cache. Remember ${opts.marker ?? 'MARKER-0000'} for later.` },
      { role: 'assistant', content: 'I looked into it; the cache is keyed by prefix.' },
    ],
    tools: [
      ...tools.map((t) => ({
        type: 'function' as const,
        function: { name: t.declaration.name, description: t.declaration.description, parameters: t.declaration.parametersJsonSchema },
      })),
      { type: 'function', function: { name: 'agent', description: 'Starts a sub-agent.', parameters: { type: 'object' } } },
    ],
    temperature: 0.2,
  };
}

/** The same parent in Anthropic's Messages shape: a system prompt, tools, a marker in the history. */
export function anthropicSession(tools: readonly Tool[], opts: { marker?: string; words?: number } = {}): AnthropicMessagesSession {
  return {
    format: 'anthropic-messages',
    model: 'claude-sonnet-4-5',
    max_tokens: 2048,
    system: `You are a research agent. ${filler(opts.words ?? 1500, 'sys')}`,
    tools: [
      ...tools.map((t) => ({
        name: t.declaration.name,
        description: t.declaration.description,
        input_schema: t.declaration.parametersJsonSchema as { type: 'object' },
      })),
      { name: 'agent', description: 'Starts a sub-agent.', input_schema: { type: 'object' as const } },
    ],
    messages: [
      { role: 'user', content: `Look into the cache. Remember ${opts.marker ?? 'MARKER-0000'} for later.` },
      { role: 'assistant', content: 'I looked into it; the cache is keyed by prefix.' },
    ],
  };
}
