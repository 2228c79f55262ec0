/**
 * The sink: a node:http server (keep-alive) that reads each request body to its end, counting its
 * bytes, and answers at once with the smallest valid streamed answer of the request's dialect (one
 * text reply, "done"), so that a client's cost per call can be set against the physical floor
 * (bench/floor.ts). It never parses a body. Routes:
 *   POST /v1beta/models/{model}:streamGenerateContent   Gemini: one SSE event, then the end
 *   POST /v1/chat/completions                           Chat Completions: SSE chunks and `data: [DONE]`
 *   POST /v1/messages                                   Anthropic Messages: message_start … message_stop
 *   GET /cpu                                            { cpuMs, requests, bytes }: this process's CPU
 *                                                       (user + system), model requests and body bytes so far
 * Started in a process of its own by bench/lib/server.ts (withSink), through bench/lib/server-process.ts.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SinkMetrics {
  /** Process CPU (user + system) of the sink's process since it started, ms. */
  cpuMs: number;
  /** Model requests answered (not GET /cpu). */
  requests: number;
  /** Request body bytes read, over all model requests. */
  bytes: number;
}

export interface Sink {
  url: string;
  metrics(): SinkMetrics;
  close(): Promise<void>;
}

/** Token counts in the answers: a stand-in, about 4 bytes per token. */
const tokens = (bytes: number): number => Math.max(1, Math.ceil(bytes / 4));

const sse = (event: unknown, name?: string): string => `${name !== undefined ? `event: ${name}\n` : ''}data: ${JSON.stringify(event)}\n\n`;

function gemini(bytes: number): string[] {
  const n = tokens(bytes);
  return [
    sse({
      candidates: [{ content: { role: 'model', parts: [{ text: 'done' }] }, finishReason: 'STOP', index: 0 }],
      usageMetadata: { promptTokenCount: n, candidatesTokenCount: 1, totalTokenCount: n + 1 },
    }),
  ];
}

function chat(bytes: number): string[] {
  const n = tokens(bytes);
  const base = { id: 'chatcmpl-sink', object: 'chat.completion.chunk', created: 0, model: 'sink' };
  return [
    sse({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: 'done' }, finish_reason: null }] }),
    sse({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }),
    sse({ ...base, choices: [], usage: { prompt_tokens: n, completion_tokens: 1, total_tokens: n + 1 } }),
    'data: [DONE]\n\n',
  ];
}

function anthropic(bytes: number): string[] {
  const n = tokens(bytes);
  return [
    sse(
      {
        type: 'message_start',
        message: {
          id: 'msg_sink',
          type: 'message',
          role: 'assistant',
          model: 'sink',
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: n, output_tokens: 1 },
        },
      },
      'message_start',
    ),
    sse({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }, 'content_block_start'),
    sse({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'done' } }, 'content_block_delta'),
    sse({ type: 'content_block_stop', index: 0 }, 'content_block_stop'),
    sse({ type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 1 } }, 'message_delta'),
    sse({ type: 'message_stop' }, 'message_stop'),
  ];
}

/** The answer's events for a POST to `path`, or undefined when no dialect has that route. */
function answerFor(path: string): ((bytes: number) => string[]) | undefined {
  if (/^\/v1beta\/models\/[^/]+:streamGenerateContent$/.test(path)) return gemini;
  if (path === '/v1/chat/completions') return chat;
  if (path === '/v1/messages') return anthropic;
  return undefined;
}

export async function startSink(): Promise<Sink> {
  let requests = 0;
  let bytes = 0;
  const metrics = (): SinkMetrics => {
    const cpu = process.cpuUsage();
    return { cpuMs: (cpu.user + cpu.system) / 1000, requests, bytes };
  };
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] as string;
    let length = 0;
    req.on('data', (chunk: Buffer) => (length += chunk.length));
    req.on('end', () => {
      if (req.method === 'GET' && path === '/cpu') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(metrics()));
        return;
      }
      const answer = req.method === 'POST' ? answerFor(path) : undefined;
      if (answer === undefined) {
        res
          .writeHead(404, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: { code: 404, message: `sink: no route ${req.method} ${path}` } }));
        return;
      }
      requests++;
      bytes += length;
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      for (const event of answer(length)) res.write(event);
      res.end();
    });
  });
  // HTTP keep-alive is node:http's default: sockets stay open across a client's pause between runs.
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    metrics,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
