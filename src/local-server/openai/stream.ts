import type { FaultKind } from '../core/faults.js';
import { argumentFragments, sendPaced, streamPieces, type Exchange, type Sent } from '../core/exchange.js';
import type { LatencyModel } from '../core/latency.js';
import type { AssistantReply } from './translate.js';
import type { ChatCompletionChunk, ChatUsage, ChunkDelta } from './wire.js';

/**
 * `stream: true`: `data: {chunk}` events, then `data: [DONE]`. Text comes in a few pieces; a tool
 * call comes as a first fragment with index, id, type and name, then argument text in fragments.
 * With stream_options.include_usage every chunk has `usage: null` and a last chunk with no choices
 * carries the usage.
 */

export interface ChunkHead {
  id: string;
  created: number;
  model: string;
  system_fingerprint: string;
}

interface Step {
  delta: ChunkDelta;
  /** Characters of generated text it carries (for decode time). */
  chars: number;
}

function steps(reply: AssistantReply): Step[] {
  if (!reply.toolCalls) {
    const pieces = streamPieces([{ text: reply.content ?? '' }]).map((parts) => parts[0]?.text ?? '');
    return [
      { delta: { role: 'assistant', content: '', refusal: null }, chars: 0 },
      ...pieces.map((text) => ({ delta: { content: text }, chars: text.length })),
    ];
  }
  const out: Step[] = [];
  reply.toolCalls.forEach((call, index) => {
    const first: ChunkDelta = {
      tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }],
    };
    out.push({ delta: index === 0 ? { role: 'assistant', content: null, ...first } : first, chars: call.function.name.length });
    for (const piece of argumentFragments(call.function.arguments))
      out.push({ delta: { tool_calls: [{ index, function: { arguments: piece } }] }, chars: piece.length });
  });
  return out;
}

function chunk(head: ChunkHead, choices: ChatCompletionChunk['choices'], usage: ChatUsage | null | undefined): ChatCompletionChunk {
  const out: ChatCompletionChunk = {
    id: head.id,
    object: 'chat.completion.chunk',
    created: head.created,
    model: head.model,
    system_fingerprint: head.system_fingerprint,
    choices,
  };
  if (usage !== undefined) out.usage = usage;
  return out;
}

export async function streamReply(
  ex: Exchange,
  head: ChunkHead,
  reply: AssistantReply,
  stream: { usage: ChatUsage | undefined; completionTokens: number; latency: LatencyModel; fault: FaultKind | undefined },
): Promise<Sent> {
  ex.res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
  // With include_usage every chunk but the last carries `usage: null`; without it, no usage field at all.
  const nullUsage = stream.usage !== undefined ? null : undefined;
  const send = (chunk: ChatCompletionChunk, last = false): void => {
    const data = JSON.stringify(chunk);
    ex.res.write(`data: ${last && stream.fault === 'malformed' ? data.slice(0, Math.floor(data.length / 2)) : data}\n\n`);
  };
  const sent = await sendPaced(steps(reply), stream.completionTokens, stream.latency, ex.signal, (step) =>
    send(chunk(head, [{ index: 0, delta: step.delta, logprobs: null, finish_reason: null }], nullUsage)),
  );
  if (!sent) return 0;
  send(chunk(head, [{ index: 0, delta: {}, logprobs: null, finish_reason: reply.finishReason }], nullUsage), stream.usage === undefined);
  if (stream.usage !== undefined) send(chunk(head, [], stream.usage), true);
  if (stream.fault !== 'malformed') ex.res.write('data: [DONE]\n\n');
  ex.res.end();
  return 200;
}
