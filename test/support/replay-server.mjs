// A replay server, run in a process of its own: it answers each request with a response recorded
// from a live API (test/fixtures/recorded/), adding only the framing the API puts around it.
//
//   node test/support/replay-server.mjs [recordings-dir]
//
// It listens on a free port of 127.0.0.1 and prints one line, {"url": "http://127.0.0.1:PORT"}.
//
// Which recording: the first path segments name it, and the rest is the API's own path, so that a
// client's base URL selects the recording:
//
//   /replay/<provider>/<file>[+<file>…]/<the API's path>
//
// With several files joined by `+`, the nth request under that base gets the nth file (the last one
// repeats): a tool call, then the answer after it. A js-genai recording (a `.json` file with
// `interactions`) is a sequence of its own: the nth request gets its nth interaction (the last repeats).
// `GET /requests` answers every request received so far: [{ path, body }].
//
// The framing, all of it (nothing in a recording is changed):
//
// - `.chunks.txt` (the Vercel AI SDK's streams: one JSON chunk a line, without SSE framing): status
//   200, `content-type: text/event-stream`, and per line, by the API the request path names:
//     Gemini (`:streamGenerateContent`):        `data: <line>\r\n\r\n` (as Google's servers send it)
//     Chat Completions (`/chat/completions`):   `data: <line>\n\n`, then `data: [DONE]\n\n`
//     Anthropic Messages (`/messages`):         `event: <the line's "type">\ndata: <line>\n\n`
//                                               (Anthropic's SDK skips a message without an `event:` line)
//     Responses (`/responses`):                 `event: <the line's "type">\ndata: <line>\n\n`
// - a js-genai recording (`interactions[n].response`): its own status code and content-type; a
//   streamed body's segments as `data: <segment as JSON>\r\n\r\n`, else the first segment as JSON.
// - a whole Responses API response (a `.json` file with `"object": "response"`, what a call with
//   `stream: false` gets): status 200, `content-type: application/json`, the body as it is.
// - an error body (another `.json` file): the status and headers ERROR_BODIES gives for that file,
//   the body as it is. The status is not in the recording: it is the one the AI SDK's own tests
//   serve the body with (named in the recordings' README).

import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(process.argv[2] ?? fileURLToPath(new URL('../fixtures/recorded/', import.meta.url)));

/** Recorded error bodies: the status each is served with, and the headers besides its content-type. */
const ERROR_BODIES = {
  // Gemini answers a quota error with 429 and a google.rpc.RetryInfo in the body (no Retry-After header).
  'google-429-retry-info.json': { status: 429, headers: {} },
  // OpenAI's insufficient_quota, served by the AI SDK's test with 429.
  'openai-error.1.json': { status: 429, headers: {} },
};

const requests = [];
/** Requests seen per recording base (`/replay/<provider>/<files>`), for sequences. */
const served = new Map();

const server = createServer((req, res) => {
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (chunk) => (body += chunk));
  req.on('end', () => {
    try {
      answer(req, res, body);
    } catch (err) {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(`replay server: ${err instanceof Error ? err.message : String(err)}`);
    }
  });
});

function answer(req, res, body) {
  const url = new URL(req.url ?? '/', 'http://replay');
  if (req.method === 'GET' && url.pathname === '/requests') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(requests));
    return;
  }
  const match = /^\/replay\/([^/]+)\/([^/]+)(\/.*)?$/.exec(url.pathname);
  if (!match) {
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end(`replay server: no recording named in ${url.pathname} (/replay/<provider>/<file>/…)`);
    return;
  }
  const [, provider, files, apiPath = '/'] = match;
  requests.push({ path: `${apiPath}${url.search}`, body });
  const base = `${provider}/${files}`;
  const n = served.get(base) ?? 0;
  served.set(base, n + 1);
  const names = decodeURIComponent(files).split('+');
  const name = names[Math.min(n, names.length - 1)];
  const file = join(ROOT, provider, basename(name));
  const text = readFileSync(file, 'utf8');
  if (name.endsWith('.chunks.txt')) return streamChunks(res, text, apiPath);
  const parsed = JSON.parse(text);
  if (Array.isArray(parsed.interactions)) return replayInteraction(res, parsed.interactions, n);
  if (parsed.object === 'response') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(text);
    return;
  }
  const error = ERROR_BODIES[basename(name)];
  if (error === undefined) throw new Error(`${name}: neither a stream, a js-genai recording, a whole response nor a listed error body`);
  res.writeHead(error.status, { 'content-type': 'application/json', ...error.headers });
  res.end(text);
}

function streamChunks(res, text, apiPath) {
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  if (apiPath.includes(':streamGenerateContent')) {
    for (const line of lines) res.write(`data: ${line}\r\n\r\n`);
  } else if (apiPath.endsWith('/chat/completions')) {
    for (const line of lines) res.write(`data: ${line}\n\n`);
    res.write('data: [DONE]\n\n');
  } else if (apiPath.endsWith('/messages') || apiPath.endsWith('/responses')) {
    for (const line of lines) res.write(`event: ${JSON.parse(line).type}\ndata: ${line}\n\n`);
  } else {
    throw new Error(`no framing known for ${apiPath}`);
  }
  res.end();
}

function replayInteraction(res, interactions, n) {
  const { response } = interactions[Math.min(n, interactions.length - 1)];
  const type = Object.entries(response.headers ?? {}).find(([key]) => key.toLowerCase() === 'content-type')?.[1] ?? 'application/json';
  res.writeHead(response.statusCode, { 'content-type': type });
  const segments = response.bodySegments ?? [];
  if (type.startsWith('text/event-stream')) {
    for (const segment of segments) res.write(`data: ${JSON.stringify(segment)}\r\n\r\n`);
    res.end();
  } else {
    res.end(segments.length > 0 ? JSON.stringify(segments[0]) : '');
  }
}

server.listen(0, '127.0.0.1', () => {
  const { port } = server.address();
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}` })}\n`);
});
// The test that started it ends it; a parent that died leaves no server behind.
process.on('disconnect', () => server.close(() => process.exit(0)));
process.stdin.on('end', () => server.close(() => process.exit(0)));
process.stdin.resume();
