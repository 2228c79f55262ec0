import { isUtf8 } from 'node:buffer';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { newRequestId, sendAnthropicFailure } from './anthropic/errors.js';
import { serveMessages, serveMessageTokens } from './anthropic/generate.js';
import { checkAnthropicHeaders, isAnthropicPath, matchAnthropicRoute, notFoundPath, type AnthropicRoute } from './anthropic/routes.js';
import { serveCachedContents } from './gemini/cached-contents.js';
import { ApiFailure } from './core/errors.js';
import { sendFailure } from './gemini/errors.js';
import { parseFaultSpec } from './core/faults.js';
import type { Exchange } from './core/exchange.js';
import { serveCountTokens, serveGenerate } from './gemini/generate.js';
import { prometheusText, type LocalServerMetrics } from './core/metrics.js';
import { sendOpenAIFailure } from './openai/errors.js';
import { serveChatCompletions } from './openai/generate.js';
import { checkBearer, invalidUrl, isOpenAIPath, matchOpenAIRoute, serveModels, type OpenAIRoute } from './openai/routes.js';
import { matchRoute, type Route } from './gemini/routes.js';
import { serveResponses, serveStoredResponse } from './responses/generate.js';
import { createState, metricsOf, type CapturedRequest, type LocalServerOptions, type ServerState } from './state.js';
import { isObject, parseJsonBody } from './core/json.js';

export interface LocalServer {
  /** e.g. http://127.0.0.1:PORT, no trailing slash: the SDK's httpOptions.baseUrl. */
  url: string;
  port: number;
  close(): Promise<void>;
  metrics(): LocalServerMetrics;
  /** Every request received, when options.captureRequests is true (else stays empty). */
  requests: readonly CapturedRequest[];
}

const DEFAULT_MAX_BODY = 32 * 1024 * 1024;
/** Node's own default: five minutes to receive a whole request. */
const DEFAULT_REQUEST_TIMEOUT_MS = 300_000;

type BodyResult = { ok: true; bytes: Buffer } | { ok: false; tooLarge: boolean };

/** Reads the body up to `limit` bytes; past it keeps draining (so the 413 can be read) but stores nothing. */
function readBody(req: IncomingMessage, limit: number): Promise<BodyResult> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) tooLarge = true;
      if (!tooLarge) chunks.push(chunk);
    });
    req.on('end', () => resolve(tooLarge ? { ok: false, tooLarge } : { ok: true, bytes: Buffer.concat(chunks) }));
    req.on('error', () => resolve({ ok: false, tooLarge: false }));
    req.on('close', () => resolve({ ok: false, tooLarge: false }));
  });
}

function checkKey(req: IncomingMessage, url: URL, required: string | undefined): void {
  if (required === undefined) return;
  const header = req.headers['x-goog-api-key'];
  const key = (Array.isArray(header) ? header[0] : header) ?? url.searchParams.get('key') ?? undefined;
  if (key === undefined || key === '') {
    throw new ApiFailure(
      401,
      "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
    );
  }
  if (key !== required) throw new ApiFailure(403, 'API key not valid. Please pass a valid API key.');
}

/** Kinds whose body names the model. */
const MODEL_IN_BODY: ReadonlySet<string> = new Set([
  'cachedContents.create',
  'chat.completions',
  'responses',
  'messages',
  'messages.count_tokens',
]);

function captureModel(route: Route | OpenAIRoute | AnthropicRoute | undefined, text: string): string {
  if (!route) return '';
  if ('model' in route) return route.model;
  if (MODEL_IN_BODY.has(route.kind)) {
    try {
      const body: unknown = JSON.parse(text);
      if (isObject(body) && typeof body.model === 'string') return body.model;
    } catch {
      return '';
    }
  }
  return '';
}

/** Gemini's paths, OpenAI's (under /v1/chat, /v1/models and /v1/responses) or Anthropic's (under /v1/messages): each answers errors in its own shape. */
async function dispatch(
  state: ServerState,
  options: LocalServerOptions,
  captured: CapturedRequest[],
  req: IncomingMessage,
  res: ServerResponse,
  signal: AbortSignal,
): Promise<{ route: string; status: number }> {
  const url = new URL(req.url ?? '/', 'http://local');
  const method = req.method ?? 'GET';
  const openai = isOpenAIPath(url.pathname);
  const anthropic = !openai && isAnthropicPath(url.pathname);
  const route = openai
    ? matchOpenAIRoute(method, url.pathname)
    : anthropic
      ? matchAnthropicRoute(method, url.pathname)
      : matchRoute(method, url.pathname);
  // Every Anthropic response carries one, errors included.
  const requestId = anthropic ? newRequestId() : '';
  const name = route?.kind ?? 'unknown';
  try {
    if (route?.kind === 'metrics') {
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' });
      res.end(prometheusText(metricsOf(state)));
      return { route: name, status: 200 };
    }
    const body = await readBody(req, options.maxBodyBytes ?? DEFAULT_MAX_BODY);
    if (!body.ok) {
      if (!body.tooLarge) return { route: name, status: 0 };
      throw new ApiFailure(413, `Request payload size exceeds the limit: ${options.maxBodyBytes ?? DEFAULT_MAX_BODY} bytes.`);
    }
    const text = body.bytes.toString('utf8');
    if (options.captureRequests) captured.push({ route: name, model: captureModel(route, text), body: text });
    if (!route)
      throw openai
        ? invalidUrl(method, url.pathname)
        : anthropic
          ? notFoundPath()
          : new ApiFailure(404, `Method not found: ${method} ${url.pathname}`);
    if (openai) checkBearer(req, options.requireApiKey);
    else if (anthropic) checkAnthropicHeaders(req, options.requireApiKey);
    else checkKey(req, url, options.requireApiKey);
    const stored = route.kind === 'responses.retrieve' || route.kind === 'responses.delete';
    const bodyless =
      route.kind === 'cachedContents.get' ||
      route.kind === 'cachedContents.list' ||
      route.kind === 'cachedContents.delete' ||
      route.kind === 'models.list' ||
      stored;
    // Replacement characters would silently change the prompt (and its cache keys): refuse bad bytes.
    if (!bodyless && !isUtf8(body.bytes)) throw new ApiFailure(400, 'Invalid JSON payload received. The request body is not valid UTF-8.');
    const json = bodyless ? {} : parseJsonBody(text);
    const ex: Exchange = { res, signal, rawBody: text, rawBytes: body.bytes };
    let status: number;
    if (route.kind === 'generateContent' || route.kind === 'streamGenerateContent') status = await serveGenerate(state, route, json, ex);
    else if (route.kind === 'countTokens') status = serveCountTokens(state, route.model, json, ex);
    else if (route.kind === 'chat.completions') status = await serveChatCompletions(state, json, ex);
    else if (route.kind === 'models.list') status = serveModels(state.chat.preset, res);
    else if (route.kind === 'responses') status = await serveResponses(state, json, ex);
    else if (route.kind === 'responses.retrieve' || route.kind === 'responses.delete') status = serveStoredResponse(state, route, res);
    else if (route.kind === 'messages') status = await serveMessages(state, json, ex, requestId);
    else if (route.kind === 'messages.count_tokens') status = serveMessageTokens(json, ex, requestId);
    else status = serveCachedContents(state, route, json, res);
    return { route: name, status };
  } catch (err) {
    const failure =
      err instanceof ApiFailure ? err : new ApiFailure(500, `Internal error: ${err instanceof Error ? err.message : String(err)}`);
    if (res.destroyed) return { route: name, status: 0 };
    if (openai) sendOpenAIFailure(res, failure);
    else if (anthropic) sendAnthropicFailure(res, failure, requestId);
    else sendFailure(res, failure);
    return { route: name, status: failure.code };
  }
}

export async function startLocalServer(options: LocalServerOptions = {}): Promise<LocalServer> {
  const faults = typeof options.faults === 'string' ? parseFaultSpec(options.faults) : options.faults;
  const state = createState(options, faults);
  const captured: CapturedRequest[] = [];
  // Bounds how long a client may take to send a whole request (a slowloris holds a socket, never the loop).
  const requestTimeout = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  if (!Number.isSafeInteger(requestTimeout) || requestTimeout < 1) {
    throw new Error(`local server: requestTimeoutMs must be a positive integer (got ${String(options.requestTimeoutMs)})`);
  }
  const timeouts = {
    requestTimeout,
    headersTimeout: Math.min(60_000, requestTimeout),
    connectionsCheckingInterval: Math.max(10, Math.min(30_000, Math.floor(requestTimeout / 4))),
  };
  const server: Server = createServer(timeouts, (req, res) => {
    const controller = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) controller.abort();
    });
    state.metrics.enter();
    dispatch(state, options, captured, req, res, controller.signal)
      .then(({ route, status }) => state.metrics.request(route, status))
      .catch(() => {
        if (!res.headersSent) sendFailure(res, new ApiFailure(500, 'Internal error'));
        else res.destroy();
      })
      .finally(() => state.metrics.leave());
  });
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    // As Node's default handler: a client too slow to send its request is told so (408), not "bad request".
    const status =
      err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? '408 Request Timeout'
        : err.code === 'HPE_HEADER_OVERFLOW'
          ? '431 Request Header Fields Too Large'
          : '400 Bad Request';
    if (socket.writable) socket.end(`HTTP/1.1 ${status}\r\nconnection: close\r\n\r\n`);
    else socket.destroy();
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const urlHost = host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${urlHost}:${port}`,
    port,
    requests: captured,
    metrics: () => metricsOf(state),
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
