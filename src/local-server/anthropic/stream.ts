import type { AnthropicMessageResponse, OutputBlock } from './wire.js';
import type { FaultKind } from '../core/faults.js';
import { argumentFragments, sendPaced, streamPieces, type Exchange, type Sent } from '../core/exchange.js';
import type { LatencyModel } from '../core/latency.js';

/**
 * `stream: true`: named SSE events as the Messages API sends them (docs.anthropic.com/en/docs/
 * build-with-claude/streaming): `message_start` (the message with empty content and the prompt's
 * usage, cache fields included), then per block `content_block_start`, `content_block_delta`
 * (`text_delta` pieces, or `input_json_delta` fragments of a tool_use's input) and
 * `content_block_stop`, a `ping` after the first block starts, `message_delta` (stop_reason and
 * the cumulative usage) and `message_stop`.
 */

interface Step {
  event: { type: string; [field: string]: unknown };
  /** Characters of generated text it carries (for decode time). */
  chars: number;
}

function blockSteps(block: OutputBlock, index: number): Step[] {
  if (block.type === 'text') {
    const pieces = streamPieces([{ text: block.text }]).map((parts) => parts[0]?.text ?? '');
    return [
      { event: { type: 'content_block_start', index, content_block: { type: 'text', text: '' } }, chars: 0 },
      ...pieces.map((text) => ({ event: { type: 'content_block_delta', index, delta: { type: 'text_delta', text } }, chars: text.length })),
    ];
  }
  const start: Step = { event: { type: 'content_block_start', index, content_block: { ...block, input: {} } }, chars: block.name.length };
  const json = JSON.stringify(block.input);
  return [
    start,
    ...argumentFragments(json).map((partial_json) => ({
      event: { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json } },
      chars: partial_json.length,
    })),
  ];
}

function steps(content: readonly OutputBlock[]): Step[] {
  const out: Step[] = [];
  content.forEach((block, index) => {
    const [start, ...deltas] = blockSteps(block, index);
    out.push(start as Step);
    if (index === 0) out.push({ event: { type: 'ping' }, chars: 0 });
    out.push(...deltas, { event: { type: 'content_block_stop', index }, chars: 0 });
  });
  return out;
}

export async function streamMessage(
  ex: Exchange,
  message: AnthropicMessageResponse,
  stream: { requestId: string; latency: LatencyModel; fault: FaultKind | undefined },
): Promise<Sent> {
  ex.res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    'request-id': stream.requestId,
  });
  const send = (event: Step['event'], last = false): void => {
    const data = JSON.stringify(event);
    ex.res.write(
      `event: ${event.type}\ndata: ${last && stream.fault === 'malformed' ? data.slice(0, Math.floor(data.length / 2)) : data}\n\n`,
    );
  };
  const { usage } = message;
  send({
    type: 'message_start',
    message: { ...message, content: [], stop_reason: null, usage: { ...usage, output_tokens: Math.min(1, usage.output_tokens) } },
  });
  if (!(await sendPaced(steps(message.content), usage.output_tokens, stream.latency, ex.signal, (step) => send(step.event)))) return 0;
  send({
    type: 'message_delta',
    delta: { stop_reason: message.stop_reason, stop_sequence: null, stop_details: null },
    usage: {
      input_tokens: usage.input_tokens,
      cache_creation_input_tokens: usage.cache_creation_input_tokens,
      cache_read_input_tokens: usage.cache_read_input_tokens,
      output_tokens: usage.output_tokens,
    },
  });
  send({ type: 'message_stop' }, true);
  ex.res.end();
  return 200;
}
