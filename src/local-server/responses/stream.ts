import type { ServerResponse } from 'node:http';
import { argumentFragments, sendPaced, streamPieces } from '../core/exchange.js';
import type { FaultKind } from '../core/faults.js';
import type { LatencyModel } from '../core/latency.js';
import type { JsonObject } from '../core/types.js';
import type { OutputItem } from './wire.js';

/**
 * `stream: true`: server-sent events as the API sends them, each `event: <type>` and `data:` the
 * event with its `type` and `sequence_number` (from 0, one per event), no `[DONE]`. The order, as
 * in recordings of the API (prism-php/prism tests/Fixtures/openai/stream-basic-text-responses-1.json
 * and stream-with-tools-responses-1.json) and the openai SDK's ResponseStreamEvent types:
 *
 *   response.created, response.in_progress                       (the Response, in progress, no output)
 *   a message:  response.output_item.added (status in_progress, content [])
 *               response.content_part.added (output_text, text '')
 *               response.output_text.delta …  response.output_text.done
 *               response.content_part.done  response.output_item.done (completed)
 *   a call:     response.output_item.added (function_call, arguments '')
 *               response.function_call_arguments.delta …  response.function_call_arguments.done
 *               response.output_item.done
 *   response.completed                                           (the whole Response, with usage)
 *
 * The text and argument deltas come in the same pieces as the Chat route's (core/exchange.ts),
 * paced by the latency model.
 */

export interface EventSink {
  /** Writes one event; `last` (response.completed) is the one a `malformed` fault cuts short. */
  send(type: string, payload: JsonObject, last?: boolean): void;
}

export function openEventStream(res: ServerResponse, fault: FaultKind | undefined): EventSink {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
  let sequence = 0;
  return {
    send(type, payload, last = false) {
      const data = JSON.stringify({ type, sequence_number: sequence++, ...payload });
      res.write(`event: ${type}\ndata: ${last && fault === 'malformed' ? data.slice(0, Math.floor(data.length / 2)) : data}\n\n`);
    },
  };
}

interface Step {
  /** Characters of generated text it carries (for decode time). */
  chars: number;
  events: [type: string, payload: JsonObject][];
}

function itemSteps(item: OutputItem, output_index: number): Step[] {
  const item_id = item.id;
  if (item.type === 'function_call') {
    const at = { item_id, output_index };
    return [
      {
        chars: item.name.length,
        events: [['response.output_item.added', { output_index, item: { ...item, status: 'in_progress', arguments: '' } }]],
      },
      ...argumentFragments(item.arguments).map(
        (delta): Step => ({ chars: delta.length, events: [['response.function_call_arguments.delta', { ...at, delta }]] }),
      ),
      {
        chars: 0,
        events: [
          ['response.function_call_arguments.done', { ...at, name: item.name, arguments: item.arguments }],
          ['response.output_item.done', { output_index, item }],
        ],
      },
    ];
  }
  const part = item.content[0] ?? { type: 'output_text', annotations: [], logprobs: [], text: '' };
  const at = { item_id, output_index, content_index: 0 };
  const pieces = streamPieces([{ text: part.text }]).map((parts) => parts[0]?.text ?? '');
  return [
    {
      chars: 0,
      events: [
        ['response.output_item.added', { output_index, item: { ...item, status: 'in_progress', content: [] } }],
        ['response.content_part.added', { ...at, part: { ...part, text: '' } }],
      ],
    },
    ...pieces.map((delta): Step => ({ chars: delta.length, events: [['response.output_text.delta', { ...at, delta, logprobs: [] }]] })),
    {
      chars: 0,
      events: [
        ['response.output_text.done', { ...at, text: part.text, logprobs: [] }],
        ['response.content_part.done', { ...at, part }],
        ['response.output_item.done', { output_index, item }],
      ],
    },
  ];
}

/** Streams the output items' events; false when the client went away. */
export function streamOutput(
  events: EventSink,
  output: readonly OutputItem[],
  completionTokens: number,
  latency: LatencyModel,
  signal: AbortSignal,
): Promise<boolean> {
  const steps = output.flatMap((item, index) => itemSteps(item, index));
  return sendPaced(steps, completionTokens, latency, signal, (step) => {
    for (const [type, payload] of step.events) events.send(type, payload);
  });
}
