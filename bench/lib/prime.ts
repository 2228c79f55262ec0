/**
 * Warms a server's prefix cache for one prefix, outside any measurement: one request with the
 * prefix and the shared opening of the child message, as a fork's first call would send it.
 * Throughput scenarios run on a warm cache (the steady state of a long-lived engine); the cold
 * start is measured on its own, in the cache scenarios.
 */
import { dialectOf, viewMessage } from '../../dist/src/shapes/index.js';
import { openConversation } from '../../dist/src/fork-thread/conversation.js';
import { seedFork } from '../../dist/src/fork/index.js';
import { requestDecorator } from '../../dist/src/model/decorate.js';
import { createGenaiProvider } from '../../dist/src/model/genai.js';
import { createProvider, resolvePlan } from '../../dist/src/model/providers/index.js';
import type { ModelProvider, ModelRequest, ProviderConfig } from '../../dist/src/model/types.js';
import type { FrozenPrefix } from '../../dist/src/prefix/index.js';
import { undecorated } from './plan.js';
import { sessionFormat } from '../../dist/src/shapes/registry.js';

export async function primeCache(url: string, prefix: FrozenPrefix): Promise<void> {
  const provider = createGenaiProvider({ kind: 'local', baseUrl: url });
  await send(provider, openConversation(seedFork(prefix.session, 'REPLY primed'), undecorated).request(), 'priming the cache');
}

/**
 * What a parent agent does before it forks: the request that produced the history's last model
 * message (system instruction, tools, settings and the history before that reply), which fills the
 * cache with the prefix its forks send. Sent in the session's own dialect through the provider the
 * forks use (`createProvider(config, format)`), decorated as the engine decorates a parent's
 * requests with the forks' routing key (the prefix id, the engine's default).
 */
export async function sendAsParent(config: ProviderConfig, prefix: FrozenPrefix): Promise<void> {
  const dialect = dialectOf(prefix.session);
  const messages = dialect.messages(prefix.session);
  const last = messages[messages.length - 1];
  const sent = last !== undefined && viewMessage(last).role === 'model' ? messages.slice(0, -1) : messages;
  const format = sessionFormat(prefix.session);
  // Decorated as the engine decorates a parent's requests (the one request path), with the forks' key.
  const plan = resolvePlan(config.kind, {
    session: prefix.session,
    cache: 'implicit',
    cacheTtl: '5m',
    cacheKey: prefix.id,
    role: 'parent',
    warmup: 'auto',
    parentWarm: false,
    overrides: {},
  });
  const request = requestDecorator(plan, { shared: sent.length, window: 'parent' }).request(dialect.request(prefix.session, sent));
  await send(createProvider(config, format), request, "the parent's call");
}

async function send(provider: ModelProvider, request: ModelRequest, what: string): Promise<void> {
  const outcome = await provider.generate(request, { signal: AbortSignal.timeout(600_000) });
  if (!outcome.ok) throw new Error(`${what} failed: ${outcome.error.message}`);
}
