/** The engine's cache plans as the bench's hand-made runners need them (the engine resolves its own). */
import { requestDecorator, type RequestDecorator } from '../../dist/src/model/decorate.js';
import type { CachePlan } from '../../dist/src/model/plan.js';
import { planOf, resolveOptions } from '../../dist/src/engine/options.js';
import type { FrozenPrefix } from '../../dist/src/prefix/index.js';

/** Requests as the shape writes them, nothing added: the simulator's implicit cache needs nothing. */
export const undecorated: RequestDecorator = requestDecorator(
  { request: { mechanism: 'none' }, shape: 'gemini' },
  { shared: 0, window: 'bench' },
);

/** The local provider's plan for a prefix with the engine's defaults (implicit caching, warm-up auto). */
export function localPlan(prefix: FrozenPrefix): CachePlan {
  return planOf(resolveOptions({ provider: { kind: 'local', baseUrl: 'http://127.0.0.1:9' } }), prefix.session, {
    cacheKey: prefix.id,
    role: 'forks',
    parentWarm: false,
  });
}
