/** Which API method a request names. Unknown paths and wrong methods are 404, as Google's front end answers. */

export type GenerateRoute = { kind: 'generateContent'; model: string } | { kind: 'streamGenerateContent'; model: string };
type CountRoute = { kind: 'countTokens'; model: string };
export type CacheRoute =
  | { kind: 'cachedContents.create' }
  | { kind: 'cachedContents.list' }
  | { kind: 'cachedContents.get'; name: string }
  | { kind: 'cachedContents.update'; name: string }
  | { kind: 'cachedContents.delete'; name: string };
export type Route = GenerateRoute | CountRoute | CacheRoute | { kind: 'metrics' };

export type RouteKind = Route['kind'];

const MODEL_METHOD = /^\/(?:v1beta|v1)\/models\/([^/:]+):(generateContent|streamGenerateContent|countTokens)$/;
const CACHE_ITEM = /^\/(?:v1beta|v1)\/cachedContents\/([^/:]+)$/;
const CACHE_COLLECTION = /^\/(?:v1beta|v1)\/cachedContents$/;

function decode(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

export function matchRoute(method: string, pathname: string): Route | undefined {
  if (pathname === '/metrics') return method === 'GET' ? { kind: 'metrics' } : undefined;
  const model = MODEL_METHOD.exec(pathname);
  if (model && model[1] !== undefined) {
    const name = decode(model[1]);
    if (method !== 'POST' || name === undefined) return undefined;
    if (model[2] === 'countTokens') return { kind: 'countTokens', model: name };
    if (model[2] === 'generateContent') return { kind: 'generateContent', model: name };
    return { kind: 'streamGenerateContent', model: name };
  }
  if (CACHE_COLLECTION.test(pathname)) {
    if (method === 'POST') return { kind: 'cachedContents.create' };
    if (method === 'GET') return { kind: 'cachedContents.list' };
    return undefined;
  }
  const item = CACHE_ITEM.exec(pathname);
  if (item && item[1] !== undefined) {
    const id = decode(item[1]);
    if (id === undefined) return undefined;
    const name = `cachedContents/${id}`;
    if (method === 'GET') return { kind: 'cachedContents.get', name };
    if (method === 'PATCH') return { kind: 'cachedContents.update', name };
    if (method === 'DELETE') return { kind: 'cachedContents.delete', name };
  }
  return undefined;
}
