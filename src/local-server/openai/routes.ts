import type { IncomingMessage, ServerResponse } from 'node:http';
import type { UsagePreset } from './cache-presets.js';
import { OpenAIFailure } from './errors.js';

/**
 * The OpenAI-compatible paths: `POST /v1/chat/completions`, `GET /v1/models`, and the Responses
 * API's `POST /v1/responses` with `GET`/`DELETE /v1/responses/{id}` (responses/; the openai SDK
 * with a baseURL ending in /v1 asks for exactly these). Other paths under /v1/chat, /v1/models (no
 * colon: Gemini's model methods always have one) and /v1/responses are answered 404 in OpenAI's
 * error shape.
 */

export type OpenAIRoute =
  | { kind: 'chat.completions' }
  | { kind: 'models.list' }
  | { kind: 'responses' }
  | { kind: 'responses.retrieve'; id: string }
  | { kind: 'responses.delete'; id: string };
export type OpenAIRouteKind = OpenAIRoute['kind'];

/** True for paths the OpenAI dialect answers, errors included. */
export function isOpenAIPath(pathname: string): boolean {
  const responses = pathname === '/v1/responses' || pathname.startsWith('/v1/responses/');
  return (
    responses ||
    pathname.startsWith('/v1/chat/') ||
    pathname === '/v1/models' ||
    (pathname.startsWith('/v1/models/') && !pathname.includes(':'))
  );
}

export function matchOpenAIRoute(method: string, pathname: string): OpenAIRoute | undefined {
  if (pathname === '/v1/chat/completions' && method === 'POST') return { kind: 'chat.completions' };
  if (pathname === '/v1/models' && method === 'GET') return { kind: 'models.list' };
  if (pathname === '/v1/responses' && method === 'POST') return { kind: 'responses' };
  const id = /^\/v1\/responses\/([^/]+)$/.exec(pathname)?.[1];
  if (id !== undefined && (method === 'GET' || method === 'DELETE'))
    return { kind: method === 'GET' ? 'responses.retrieve' : 'responses.delete', id };
  return undefined;
}

export const invalidUrl = (method: string, pathname: string): OpenAIFailure =>
  new OpenAIFailure(404, `Invalid URL (${method} ${pathname})`);

/** `Authorization: Bearer KEY`, when the server was started with a key: 401 without it or with another. */
export function checkBearer(req: IncomingMessage, required: string | undefined): void {
  if (required === undefined) return;
  const match = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '');
  const key = match?.[1]?.trim();
  if (key === undefined || key === '') {
    throw new OpenAIFailure(
      401,
      "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
    );
  }
  if (key !== required) throw new OpenAIFailure(401, 'Incorrect API key provided.', null, 'invalid_api_key');
}

/** The names each simulated provider offers (the simulator answers to any model name). */
const MODELS: Readonly<Record<UsagePreset, { ids: string[]; owner: string }>> = {
  openai: { ids: ['gpt-4.1', 'gpt-4.1-mini', 'gpt-4o-mini'], owner: 'system' },
  deepseek: { ids: ['deepseek-chat', 'deepseek-reasoner'], owner: 'deepseek' },
  dashscope: { ids: ['qwen-plus', 'qwen-flash', 'qwen3-max', 'qwen3-coder-plus'], owner: 'system' },
  none: { ids: ['forkpool-local'], owner: 'vllm' },
};

/** A fixed creation time: the list is the same on every call. */
const CREATED = 1_700_000_000;

export function serveModels(preset: UsagePreset, res: ServerResponse): number {
  const { ids, owner } = MODELS[preset];
  // DeepSeek's list has no `created` (api-docs.deepseek.com, GET /models).
  const data = ids.map((id) =>
    preset === 'deepseek' ? { id, object: 'model', owned_by: owner } : { id, object: 'model', created: CREATED, owned_by: owner },
  );
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ object: 'list', data }));
  return 200;
}
