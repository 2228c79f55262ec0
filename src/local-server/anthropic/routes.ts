import type { IncomingMessage } from 'node:http';
import { ApiFailure } from '../core/errors.js';

/**
 * Anthropic's paths: `POST /v1/messages` and `POST /v1/messages/count_tokens` (the
 * @anthropic-ai/sdk with `baseURL: <url>` asks for exactly these). Other paths under /v1/messages
 * are 404 in Anthropic's error shape. `GET /v1/models` is left to the OpenAI dialect, which
 * answers that same path.
 */

export type AnthropicRoute = { kind: 'messages' } | { kind: 'messages.count_tokens' };
export type AnthropicRouteKind = AnthropicRoute['kind'];

/** True for paths the Anthropic dialect answers, errors included. */
export function isAnthropicPath(pathname: string): boolean {
  return pathname === '/v1/messages' || pathname.startsWith('/v1/messages/');
}

export function matchAnthropicRoute(method: string, pathname: string): AnthropicRoute | undefined {
  if (method !== 'POST') return undefined;
  if (pathname === '/v1/messages') return { kind: 'messages' };
  if (pathname === '/v1/messages/count_tokens') return { kind: 'messages.count_tokens' };
  return undefined;
}

export const notFoundPath = (): ApiFailure => new ApiFailure(404, 'Not Found');

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * The key, when the server was started with one: `x-api-key` as the API documents it, or
 * `Authorization: Bearer` (the SDK 1.x sends its `apiKey` that way). Then `anthropic-version`,
 * which the real API requires of every request.
 */
export function checkAnthropicHeaders(req: IncomingMessage, required: string | undefined): void {
  if (required !== undefined) {
    const bearer = /^Bearer\s+(.+)$/i.exec(header(req, 'authorization') ?? '')?.[1]?.trim();
    const key = header(req, 'x-api-key') || bearer;
    if (key === undefined || key === '') throw new ApiFailure(401, 'x-api-key header is required');
    if (key !== required) throw new ApiFailure(401, 'invalid x-api-key');
  }
  if (!header(req, 'anthropic-version')) throw new ApiFailure(400, 'anthropic-version: header is required');
}
