import { randomUUID } from 'node:crypto';
import type Anthropic from '@anthropic-ai/sdk';
import type { MessageCreateParamsStreaming, RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages';
import { diagnosticsParam, readDiagnosis } from './anthropic-diagnostics.js';
import type { AttemptOutcome } from './attempts.js';
import { finishOf } from './finish.js';
import { malformed } from './errors.js';
import { resolveAnthropicEndpoint } from './presets.js';
import { createStreamingProvider } from './streaming-provider.js';
import { createNodeTransport } from '../transport/node-fetch.js';
import { BODY_SPLICE, createSplicer, renderThrough, type SpliceShape } from '../transport/splice.js';
import type { AnthropicMessageLike, AnthropicRequest, ModelProvider, ProviderConfig, TokenUsage } from './types.js';
import { isRecord } from '../input/json.js';

/**
 * A ModelProvider over the official @anthropic-ai/sdk, for Anthropic's Messages API and the local
 * simulator's `POST /v1/messages`. The request body is the parent's own, sent as it is (its key
 * order; system, tools and messages never rewritten) with `"stream": true` added; the SDK does not
 * retry (the shared attempt loop does). The streamed events become one assistant message whose
 * content blocks are kept as the API sent them (thinking with its signature, redacted_thinking
 * verbatim), so that a later turn can send them back unchanged. Throws a TypeError when the key or
 * the base URL cannot be resolved (see resolveAnthropicEndpoint); the key never enters a message or
 * result. A call given `previousResponseId` (null included) sends `diagnostics` (anthropic-diagnostics.ts)
 * and returns the response's id and the verdict on the request it named.
 */
export function createAnthropicProvider(config: ProviderConfig): ModelProvider {
  const endpoint = resolveAnthropicEndpoint(config);

  // The SDK is loaded at the first call (about 140 ms of a worker's start otherwise, for sessions of other formats too).
  const clientWith = async (fetchFn: typeof fetch): Promise<Anthropic> => {
    const { default: Client } = await loadAnthropicSdk();
    return new Client({
      apiKey: endpoint.apiKey,
      baseURL: endpoint.baseUrl,
      maxRetries: 0,
      fetch: fetchFn,
      // Failures are classified and reported by forkpool; the SDK's console logging stays off unless asked for.
      ...(process.env.ANTHROPIC_LOG ? {} : { logLevel: 'off' as const }),
    });
  };
  // A rendering (once per shared layout) has a client of its own, whose fetch keeps the body and sends nothing.
  const render = (request: AnthropicRequest): Promise<string> =>
    renderThrough(async (capture) => (await clientWith(capture)).messages.create(streamingBody(request)));
  const splicer = createSplicer(BODY_SPLICE as SpliceShape<AnthropicRequest>, render, createNodeTransport());
  let client: Promise<Anthropic> | undefined;
  const clientOnce = (): Promise<Anthropic> => (client ??= clientWith(splicer.fetch));

  return createStreamingProvider(config, {
    format: 'anthropic-messages',
    api: 'Anthropic',
    secrets: endpoint.keyIsSecret ? [endpoint.apiKey] : [],
    prepare: (request) => splicer.prepare(request),
    call(request, options) {
      const named = options.previousResponseId;
      const reply = new MessageAssembler(named);
      return {
        open: async (requestOptions) => (await clientOnce()).messages.create(streamingBody(request, named), requestOptions),
        read(event) {
          const problem = reply.add(event);
          if (problem === undefined && reply.justStarted) options.onResponseStart?.(reply.id);
          return problem;
        },
        finish: () => reply.finish(),
      };
    },
  });
}

let sdk: Promise<typeof import('@anthropic-ai/sdk')> | undefined;
/** The Anthropic SDK, imported once, at the first call that needs it (or a thread's start ahead). */
export function loadAnthropicSdk(): Promise<typeof import('@anthropic-ai/sdk')> {
  sdk ??= import('@anthropic-ai/sdk');
  return sdk;
}

/**
 * What is sent: the parent's body as it is, keys in its order (an own `stream` keeps its place),
 * streaming on; with `named` (a response id, or null), `diagnostics` too (a parent's own is replaced
 * in its place: the comparison is the fork's, not the parent's conversation's).
 */
function streamingBody(request: AnthropicRequest, named?: string | null): MessageCreateParamsStreaming {
  const body = { ...request.body, stream: true };
  return (named === undefined ? body : { ...body, diagnostics: diagnosticsParam(named) }) as unknown as MessageCreateParamsStreaming;
}

type Block = Record<string, unknown>;

interface PartialBlock {
  /** The block as content_block_start gave it (its keys in order), with the deltas applied. */
  block: Block;
  /** input_json_delta fragments, joined; undefined when none came. */
  json?: string;
}

/**
 * One assistant message out of the Messages API's stream events: message_start, then per content
 * block content_block_start, its deltas and content_block_stop, then message_delta (stop reason,
 * cumulative usage) and message_stop. `add` says what is malformed, at once; `finish` checks the rest.
 */
class MessageAssembler {
  private started = false;
  private stopped = false;
  /** True right after the event that began the message (message_start). */
  justStarted = false;
  private readonly blocks = new Map<number, PartialBlock>();
  private usage: Record<string, unknown> = {};
  private finishReason: string | undefined;
  private responseId: string | undefined;
  private responseModel: string | undefined;
  /** The message's id, once message_start has given it. */
  get id(): string | undefined {
    return this.responseId;
  }
  /** The message_start message's `diagnostics`, when it has the field. */
  private diagnostics: { value: unknown } | undefined;

  /** `named`: the response the request named for cache diagnostics (GenerateOptions.previousResponseId). */
  constructor(private readonly named: string | null | undefined) {}

  add(event: RawMessageStreamEvent): string | undefined {
    this.justStarted = false;
    const e = event as unknown as Record<string, unknown>;
    if (!this.started) {
      if (e.type !== 'message_start') return `the stream began with ${describe(e.type)}, not message_start`;
      this.started = true;
      this.justStarted = true;
      const message = isRecord(e.message) ? e.message : {};
      if (isRecord(message.usage)) this.usage = { ...message.usage };
      if (typeof message.stop_reason === 'string') this.finishReason = message.stop_reason;
      if (typeof message.id === 'string' && message.id !== '') this.responseId = message.id;
      if (typeof message.model === 'string' && message.model !== '') this.responseModel = message.model;
      // "The `message_start` event carries the full `diagnostics` field" (anthropic-diagnostics.ts).
      if ('diagnostics' in message) this.diagnostics = { value: message.diagnostics };
      return undefined;
    }
    switch (e.type) {
      case 'message_start':
        return 'a second message_start';
      case 'content_block_start': {
        const index = e.index;
        if (typeof index !== 'number' || !isRecord(e.content_block)) return 'a content_block_start without an index or a block';
        if (this.blocks.has(index)) return `two content blocks at index ${index}`;
        this.blocks.set(index, { block: { ...e.content_block } });
        return undefined;
      }
      case 'content_block_delta':
        return this.delta(e);
      case 'message_delta': {
        const delta = isRecord(e.delta) ? e.delta : {};
        if (typeof delta.stop_reason === 'string') this.finishReason = delta.stop_reason;
        // Cumulative counts: the latest known value of each field wins.
        if (isRecord(e.usage)) {
          for (const [key, value] of Object.entries(e.usage)) if (value !== null && value !== undefined) this.usage[key] = value;
        }
        return undefined;
      }
      case 'message_stop':
        this.stopped = true;
        return undefined;
      default:
        // content_block_stop, and event types this client does not know yet.
        return undefined;
    }
  }

  private delta(e: Record<string, unknown>): string | undefined {
    const index = e.index;
    const partial = typeof index === 'number' ? this.blocks.get(index) : undefined;
    if (partial === undefined) return `a content_block_delta for index ${String(index)}, which no content_block_start opened`;
    const delta = isRecord(e.delta) ? e.delta : {};
    const { block } = partial;
    const kind = block.type;
    const append = (field: string, value: unknown, blockType: string): string | undefined => {
      if (kind !== blockType) return `a ${describe(delta.type)} for a ${describe(kind)} block`;
      if (typeof value !== 'string') return `a ${describe(delta.type)} without its text`;
      block[field] = (typeof block[field] === 'string' ? (block[field] as string) : '') + value;
      return undefined;
    };
    switch (delta.type) {
      case 'text_delta':
        return append('text', delta.text, 'text');
      case 'thinking_delta':
        return append('thinking', delta.thinking, 'thinking');
      case 'signature_delta':
        return append('signature', delta.signature, 'thinking');
      case 'input_json_delta':
        if (typeof delta.partial_json !== 'string') return 'an input_json_delta without partial_json';
        partial.json = (partial.json ?? '') + delta.partial_json;
        return undefined;
      case 'citations_delta':
        if (kind !== 'text') return `a citations_delta for a ${describe(kind)} block`;
        block.citations = [...(Array.isArray(block.citations) ? block.citations : []), delta.citation];
        return undefined;
      default:
        return undefined;
    }
  }

  finish(): AttemptOutcome {
    if (!this.started) return { ok: false, error: malformed('the stream held no message_start') };
    if (!this.stopped) return { ok: false, error: malformed('the stream ended before message_stop') };
    const content: Block[] = [];
    for (const [, partial] of [...this.blocks.entries()].sort(([a], [b]) => a - b)) {
      const { block } = partial;
      const isToolUse = typeof block.type === 'string' && block.type.endsWith('tool_use');
      if (isToolUse && (typeof block.name !== 'string' || block.name === '')) {
        return { ok: false, error: malformed(`a ${block.type as string} block without a name`) };
      }
      if (partial.json !== undefined) {
        const input = parseInput(partial.json);
        if (input === undefined) {
          return { ok: false, error: malformed(`the input of ${describe(block.type)} '${String(block.name)}' is not a JSON object`) };
        }
        block.input = input;
      }
      // A server that sent no id still gets its calls answered: the id is ours, unique in the conversation.
      if (block.type === 'tool_use' && (typeof block.id !== 'string' || block.id === ''))
        block.id = `toolu_${randomUUID().replace(/-/g, '')}`;
      content.push(block);
    }
    const message: AnthropicMessageLike = { role: 'assistant', content };
    return {
      ok: true,
      message,
      usage: readAnthropicUsage(this.usage) ?? { promptTokens: 0, cachedTokens: 0, outputTokens: 0 },
      finish: this.finishReason !== undefined ? finishOf(this.finishReason) : undefined,
      ...(this.responseId !== undefined ? { responseId: this.responseId } : {}),
      ...(this.responseModel !== undefined ? { responseModel: this.responseModel } : {}),
      ...(typeof this.named === 'string' ? readDiagnosis(this.named, this.diagnostics) : {}),
    };
  }
}

/** The joined input_json_delta fragments as an object: `{}` when they were empty, undefined when not a JSON object. */
function parseInput(json: string): Record<string, unknown> | undefined {
  if (json.trim() === '') return {};
  try {
    const value: unknown = JSON.parse(json);
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * An Anthropic `usage` object in forkpool's terms. Anthropic's `input_tokens` counts only the input
 * after the last cache breakpoint (neither read from nor written to the cache), so the prompt is
 * `input_tokens + cache_read_input_tokens + cache_creation_input_tokens`; cached tokens are
 * `cache_read_input_tokens` (Anthropic always reports them: 0 when absent, never unknown); cache
 * writes are `cache_creation_input_tokens`, of which `cache_creation.ephemeral_1h_input_tokens`
 * were written with the 1-hour TTL; reasoningTokens are `output_tokens_details.thinking_tokens`, part
 * of `output_tokens`, where the response says. Undefined when `usage` is not an object. In a stream, pass
 * message_start's usage with message_delta's (cumulative) values laid over it.
 */
export function readAnthropicUsage(usage: unknown): TokenUsage | undefined {
  if (!isRecord(usage)) return undefined;
  const input = count(usage.input_tokens) ?? 0;
  const read = count(usage.cache_read_input_tokens);
  const written = count(usage.cache_creation_input_tokens);
  const creation = isRecord(usage.cache_creation) ? usage.cache_creation : {};
  const written1h = count(creation.ephemeral_1h_input_tokens);
  // Thinking is billed inside output_tokens; newer responses say how much of it (output_tokens_details).
  const outputDetails = isRecord(usage.output_tokens_details) ? usage.output_tokens_details : {};
  const thinking = count(outputDetails.thinking_tokens);
  return {
    promptTokens: input + (read ?? 0) + (written ?? 0),
    cachedTokens: read ?? 0,
    outputTokens: count(usage.output_tokens) ?? 0,
    ...(thinking !== undefined ? { reasoningTokens: thinking } : {}),
    ...(written !== undefined ? { cacheWriteTokens: written } : {}),
    ...(written1h !== undefined ? { cacheWrite1hTokens: written1h } : {}),
  };
}

function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}

function describe(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? 'nothing');
}
