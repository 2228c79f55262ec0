import type { ServerResponse } from 'node:http';
import { toWireCache } from './explicit-cache.js';
import type { CacheRoute } from './routes.js';
import type { ServerState } from '../state.js';
import type { JsonObject } from '../core/types.js';
import { validateCacheCreate, validateCacheUpdate } from './validate.js';

/** cachedContents create / list / get / update / delete. Returns the status sent. */

function sendJson(res: ServerResponse, value: unknown): number {
  res.writeHead(200, { 'content-type': 'application/json; charset=UTF-8' });
  res.end(JSON.stringify(value));
  return 200;
}

export function serveCachedContents(state: ServerState, route: CacheRoute, body: JsonObject, res: ServerResponse): number {
  switch (route.kind) {
    case 'cachedContents.create':
      return sendJson(res, toWireCache(state.explicit.create(validateCacheCreate(body))));
    case 'cachedContents.list':
      return sendJson(res, { cachedContents: state.explicit.list().map(toWireCache) });
    case 'cachedContents.get':
      return sendJson(res, toWireCache(state.explicit.get(route.name)));
    case 'cachedContents.update':
      return sendJson(res, toWireCache(state.explicit.update(route.name, validateCacheUpdate(body))));
    case 'cachedContents.delete':
      state.explicit.delete(route.name);
      return sendJson(res, {});
  }
}
