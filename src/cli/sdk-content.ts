import type { TokenUsage } from '../model/types.js';
import type { MessageView } from '../shapes/view.js';

/*
 * A conversation's messages, as their shape's reader views them (src/shapes/<shape>/view.ts), written
 * as the content blocks of Qwen Code's stream-json. The shapes mirror @qwen-code/sdk's
 * TextBlock, ThinkingBlock, ToolUseBlock, ToolResultBlock and Usage; test/stream-json-sdk.test.ts
 * type-checks real lines against that package itself, so these cannot drift from it unnoticed.
 * Reading only: ids a message lacks are named by the caller (stream-json.ts), who knows the turn.
 */

export interface TextBlock {
  type: 'text';
  text: string;
}

interface ThinkingBlock {
  type: 'thinking';
  thinking: string;
  signature?: string;
}

interface ToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: unknown;
}

export interface ToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  content?: string;
  is_error: boolean;
}

export type AssistantBlock = TextBlock | ThinkingBlock | ToolUseBlock;

/** A call as the message has it: `id` undefined when the model gave none (Gemini often does not). */
export type ReplyBlock = TextBlock | ThinkingBlock | (Omit<ToolUseBlock, 'id'> & { id: string | undefined });

/** What a user-side message holds, in order: results of calls (by id, when it has one) and texts. */
export type AnswerPart = { kind: 'result'; id: string | undefined; content: string; isError: boolean } | { kind: 'text'; text: string };

export interface SdkUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens?: number;
  cache_read_input_tokens?: number;
}

/** A model reply's blocks in the order it wrote them (images and other media have no SDK block: left out; an empty text says nothing). */
export function replyBlocks(view: MessageView): ReplyBlock[] {
  return view.parts.flatMap((part): ReplyBlock[] => {
    switch (part.kind) {
      case 'text':
        return part.text === '' ? [] : [{ type: 'text', text: part.text }];
      case 'thinking':
        if (part.text === '' && part.signature === undefined) return [];
        return [{ type: 'thinking', thinking: part.text, ...(part.signature !== undefined ? { signature: part.signature } : {}) }];
      case 'call':
        return [{ type: 'tool_use', id: nonEmpty(part.call.id), name: part.call.name, input: part.input }];
      default:
        return [];
    }
  });
}

/** A user-side message's results and texts in order (a system or developer message, a sub-agent's own instructions, is no user turn). */
export function answerParts(view: MessageView): AnswerPart[] {
  if (view.role === 'system') return [];
  return view.parts.flatMap((part): AnswerPart[] => {
    if (part.kind === 'text' && part.refusal === undefined) return [{ kind: 'text', text: part.text }];
    if (part.kind === 'result')
      return [{ kind: 'result', id: nonEmpty(part.result.id), content: part.result.text, isError: part.result.isError }];
    return [];
  });
}

/** A call's usage as the SDK's Usage; cached tokens a provider does not report are left out, not 0. */
export function sdkUsage(usage: TokenUsage | undefined): SdkUsage {
  if (usage === undefined) return { input_tokens: 0, output_tokens: 0 };
  return {
    input_tokens: usage.promptTokens,
    output_tokens: usage.outputTokens,
    ...(usage.cacheWriteTokens !== undefined ? { cache_creation_input_tokens: usage.cacheWriteTokens } : {}),
    ...(usage.cachedTokens !== null ? { cache_read_input_tokens: usage.cachedTokens } : {}),
  };
}

/**
 * Blocks in runs of one type, in order: Qwen Code's assistant messages each hold blocks of a
 * single type (its BaseJsonOutputAdapter starts a new message when the type changes). Adjacent
 * texts (or thoughts) are one block, as its streamed fragments are.
 */
export function runsOfOneType(blocks: readonly AssistantBlock[]): AssistantBlock[][] {
  const runs: AssistantBlock[][] = [];
  for (const block of blocks) {
    const run = runs.at(-1);
    const last = run?.at(-1);
    if (run === undefined || last === undefined || last.type !== block.type) runs.push([block]);
    else if (last.type === 'text' && block.type === 'text') run[run.length - 1] = { type: 'text', text: last.text + block.text };
    // A signed thought (Anthropic's) stays whole: its signature covers its own text only.
    else if (last.type === 'thinking' && block.type === 'thinking' && last.signature === undefined && block.signature === undefined) {
      run[run.length - 1] = { type: 'thinking', thinking: last.thinking + block.thinking };
    } else run.push(block);
  }
  return runs;
}

function nonEmpty(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
