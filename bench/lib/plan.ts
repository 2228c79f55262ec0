/** The engine's cache plans as the bench's hand-made runners need them (the engine resolves its own). */
import { requestDecorator, type RequestDecorator } from '../../dist/src/model/decorate.js';
import type { CachePlan } from '../../dist/src/model/plan.js';
import { resolvePlan } from '../../dist/src/model/providers/index.js';
import type { FrozenPrefix } from '../../dist/src/prefix/index.js';

/** Requests as the shape writes them, nothing added: the simulator's implicit cache needs nothing. */
export const undecorated: RequestDecorator = requestDecorator({ request: { mechanism: 'none' } }, { shared: 0, window: 'bench' });

/** The local provider's plan for a prefix with the engine's defaults (implicit caching, warm-up auto). */
export function localPlan(prefix: FrozenPrefix): CachePlan {
  return resolvePlan('local', {
    session: prefix.session,
    cache: 'implicit',
    cacheTtl: '5m',
    cacheKey: prefix.id,
    role: 'forks',
    warmup: 'auto',
    parentWarm: false,
    overrides: {},
  });
}
