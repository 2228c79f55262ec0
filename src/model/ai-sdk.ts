import type { JSONSchema7, LanguageModel, ModelMessage, TextStreamPart, ToolSet } from 'ai';
import type { AttemptOutcome } from './attempts.js';
import { malformed } from './errors.js';
import { type Finish, finishOf } from './finish.js';
import { importFromProject } from './project-import.js';
import { createNodeTransport } from '../transport/node-fetch.js';
import { createStreamingProvider } from './streaming-provider.js';
import type { AiSdkMessageLike, AiSdkModelSpec, AiSdkRequest, ModelProvider, ProviderConfig, TokenUsage } from './types.js';

/*
 * A ModelProvider over the Vercel AI SDK: any of its provider packages (@ai-sdk/openai,
 * @ai-sdk/anthropic, @ai-sdk/mistral, Bedrock, Vertex, …) runs forks. The descriptor names the
 * package, its factory and the factory's method, the factory's settings (a key by the name of the
 * variable that holds it) and the model id; each thread that calls the model makes the model from
 * it once, with `ai` and the package resolved from the user's project. Every call goes through the
 * AI SDK's own streamText, one step, its retries off (the shared attempt loop retries), so the
 * bytes on the wire are the ones the package renders for the parent's agent; the reply is the
 * assistant message the AI SDK itself would append to the conversation.
 */

type AiModule = typeof import('ai');

/** The factory's settings with each `{ env }` read from the environment, and the values read so (secrets: kept out of messages). */
function resolveSettings(
  spec: Pick<AiSdkModelSpec, 'settings'>,
  env: NodeJS.ProcessEnv = process.env,
): { settings: Record<string, unknown>; secrets: string[] } {
  const settings: Record<string, unknown> = {};
  const secrets: string[] = [];
  for (const [key, value] of Object.entries(spec.settings)) {
    if (typeof value !== 'object') {
      settings[key] = value;
      continue;
    }
    const read = env[value.env];
    if (read === undefined || read === '')
      throw new TypeError(`the AI SDK provider's setting ${key} is read from ${value.env}, which is not set`);
    settings[key] = read;
    secrets.push(read);
  }
  return { settings, secrets };
}

/** The model the spec names, made once per thread: `ai` and the package come from the user's project. */
async function loadModel(spec: AiSdkModelSpec, settings: Record<string, unknown>): Promise<{ ai: AiModule; model: LanguageModel }> {
  const [ai, pkg] = await Promise.all([importFromProject<AiModule>('ai'), importFromProject<Record<string, unknown>>(spec.package)]);
  const factoryName = spec.factory ?? onlyFactory(spec.package, pkg);
  const factory = pkg[factoryName];
  if (typeof factory !== 'function') throw new TypeError(`${spec.package} exports no function ${factoryName}`);
  const provider = (factory as (settings: Record<string, unknown>) => unknown)(settings) as Record<string, unknown> &
    ((id: string) => LanguageModel);
  if (spec.method === undefined) return { ai, model: provider(spec.model) };
  const method = provider[spec.method];
  if (typeof method !== 'function') throw new TypeError(`${spec.package}'s ${factoryName}() has no method ${spec.method}`);
  return { ai, model: (method as (id: string) => LanguageModel).call(provider, spec.model) };
}

/**
 * Makes the model once where the descriptor is given (the main thread, a worker process), so that a
 * package not installed, a factory or method it lacks, or a variable not set is a TypeError before
 * anything runs, not a failure of every fork.
 */
export async function checkAiSdkModel(spec: AiSdkModelSpec): Promise<void> {
  await loadModel(spec, resolveSettings(spec).settings);
}

/** A provider package's factory when none is named: its one exported `create…` function (createOpenAI, createMistral). */
function onlyFactory(name: string, pkg: Record<string, unknown>): string {
  const factories = Object.keys(pkg).filter((key) => /^create[A-Z]/.test(key) && typeof pkg[key] === 'function');
  if (factories.length === 1) return factories[0] as string;
  throw new TypeError(
    `${name} exports ${factories.length === 0 ? 'no create… function' : `several factories (${factories.join(', ')})`}: name the one to use (factory)`,
  );
}

/** The session's tools (JSON schemas) as an AI SDK tool set, without `execute`: the model's calls come back to forkpool. */
function toolSet(ai: AiModule, tools: Readonly<Record<string, unknown>> | undefined): ToolSet | undefined {
  if (tools === undefined) return undefined;
  const set: ToolSet = {};
  for (const [name, tool] of Object.entries(tools)) {
    const { inputSchema, ...rest } = tool as { inputSchema: JSONSchema7 } & Record<string, unknown>;
    set[name] = { ...rest, inputSchema: ai.jsonSchema(inputSchema) } as ToolSet[string];
  }
  return set;
}

/** What the AI SDK counted, as forkpool counts it: unknown cached tokens stay unknown (null), never 0. */
function usageOf(usage: Extract<TextStreamPart<ToolSet>, { type: 'finish-step' }>['usage']): TokenUsage {
  const details = usage.inputTokenDetails;
  const reasoningTokens = usage.outputTokenDetails?.reasoningTokens;
  return {
    promptTokens: usage.inputTokens ?? 0,
    cachedTokens: details?.cacheReadTokens ?? null,
    outputTokens: usage.outputTokens ?? 0,
    ...(reasoningTokens !== undefined ? { reasoningTokens } : {}),
    ...(details?.cacheWriteTokens !== undefined ? { cacheWriteTokens: details.cacheWriteTokens } : {}),
  };
}

/** What the AI SDK's own check of a call's messages sees (the real ones go through prepareStep). */
const STAND_IN: readonly ModelMessage[] = [{ role: 'user', content: '' }];

/** The stream's own parts, then the response's messages (the AI SDK assembles them once the stream is read). */
type AiSdkEvent = TextStreamPart<ToolSet> | { type: 'forkpool-response'; messages: readonly ModelMessage[] };

/** One generateText call as the events a stream would end with: its step's end, then its messages. */
async function* generated(ai: AiModule, args: Record<string, unknown>): AsyncGenerator<AiSdkEvent> {
  const result = await ai.generateText(args as unknown as Parameters<AiModule['generateText']>[0]);
  yield {
    type: 'finish-step',
    response: result.response,
    usage: result.usage,
    finishReason: result.finishReason,
    rawFinishReason: result.rawFinishReason,
    providerMetadata: result.providerMetadata,
  } as Extract<TextStreamPart<ToolSet>, { type: 'finish-step' }>;
  yield { type: 'forkpool-response', messages: result.response.messages };
}

export function createAiSdkProvider(config: ProviderConfig): ModelProvider {
  const spec = config.aiSdk;
  if (spec === undefined) throw new TypeError("the ai-sdk provider's descriptor names no model (aiSdk)");
  const { settings, secrets } = resolveSettings(spec);
  let loaded: Promise<{ ai: AiModule; model: LanguageModel }> | undefined;
  const model = (): Promise<{ ai: AiModule; model: LanguageModel }> => {
    // The package's requests go over node:http (the AI SDK's providers take a `fetch`): the global
    // fetch (undici) re-checks, re-encodes and copies a string body, which on a fork's long request
    // cost more of its thread's CPU than the rest of the call. The bytes sent are the same.
    loaded ??= loadModel(spec, { ...settings, fetch: createNodeTransport().fetch });
    // A failed load (a package not installed) is tried again by the next call.
    loaded.catch(() => {
      loaded = undefined;
    });
    return loaded;
  };

  return createStreamingProvider(config, {
    format: 'ai-sdk',
    api: `AI SDK (${spec.package})`,
    // Every value read from the environment is kept out of messages, not only the one named apiKey.
    secrets,
    prepare: async (request) => ({ request, release: () => undefined }),
    call(request: AiSdkRequest, options) {
      let started = false;
      let usage: TokenUsage | undefined;
      let finish: Finish | undefined;
      let responseModel: string | undefined;
      let message: AiSdkMessageLike | undefined;
      return {
        async open(attempt) {
          const { ai, model: languageModel } = await model();
          const { model: _id, tools, messages, ...call } = request.body;
          const args = {
            ...(call as Record<string, unknown>),
            model: languageModel,
            // The AI SDK checks `messages` against its schema on every call, which costs a fork more
            // than the rest of its call once the history holds many parts (each one tried against a
            // union's members); the session's messages were checked once, when it was frozen, and the
            // fork's own are the AI SDK's or the dialect's. So the call is given a stand-in, and its one
            // step sends the real messages through prepareStep, which the AI SDK renders as it would
            // have rendered them (the same request bytes).
            messages: STAND_IN,
            prepareStep: () => ({ messages }),
            ...(tools !== undefined ? { tools: toolSet(ai, tools as Record<string, unknown>) } : {}),
            maxRetries: 0,
            abortSignal: attempt.signal,
          };
          if (spec.mode === 'generate') return generated(ai, args);
          const result = ai.streamText({
            ...args,
            // The error is a part of the stream, read below; the AI SDK's default logs it to the console.
            onError: () => undefined,
          } as unknown as Parameters<AiModule['streamText']>[0]);
          return (async function* parts(): AsyncGenerator<AiSdkEvent> {
            for await (const part of result.fullStream) {
              if (part.type === 'error') throw part.error;
              yield part;
            }
            yield { type: 'forkpool-response', messages: (await result.response).messages };
          })();
        },
        read(event) {
          if (!started && event.type !== 'start' && event.type !== 'start-step' && event.type !== 'raw') {
            started = true;
            options.onResponseStart?.();
          }
          if (event.type === 'finish-step') {
            usage = usageOf(event.usage);
            // The AI SDK's unified reason, with the provider's own word where it passes one on.
            finish = { reason: finishOf(event.finishReason).reason, raw: event.rawFinishReason ?? event.finishReason };
            responseModel = event.response.modelId;
          } else if (event.type === 'forkpool-response') {
            message = event.messages.find((m) => m.role === 'assistant') as AiSdkMessageLike | undefined;
            if (message === undefined) return 'the AI SDK returned no assistant message';
          }
          return undefined;
        },
        finish(): AttemptOutcome {
          if (message === undefined || usage === undefined)
            return { ok: false, error: malformed('the stream ended before its step finished') };
          return { ok: true, message, usage, finish, ...(responseModel !== undefined ? { responseModel } : {}) };
        },
      };
    },
  });
}
