/**
 * Warms a server's prefix cache for one prefix, outside any measurement: one request with the
 * prefix and the shared opening of the child message, as a fork's first call would send it.
 * Throughput scenarios run on a warm cache (the steady state of a long-lived engine); the cold
 * start is measured on its own, in the cache scenarios.
 */
import { seedFork } from '../../src/fork/index.js';
import { createGenaiProvider } from '../../src/model/genai.js';
import type { FrozenPrefix } from '../../src/prefix/index.js';

export async function primeCache(url: string, prefix: FrozenPrefix): Promise<void> {
  const provider = createGenaiProvider({ kind: 'local', baseUrl: url });
  const seed = seedFork(prefix.session, 'REPLY primed');
  const outcome = await provider.generate(
    {
      model: seed.model,
      contents: seed.contents,
      ...(seed.systemInstruction !== undefined ? { systemInstruction: seed.systemInstruction } : {}),
      ...(seed.tools !== undefined ? { tools: seed.tools } : {}),
      ...(seed.toolConfig !== undefined ? { toolConfig: seed.toolConfig } : {}),
      ...(seed.generationConfig !== undefined ? { generationConfig: seed.generationConfig } : {}),
    },
    { signal: AbortSignal.timeout(600_000) },
  );
  if (!outcome.ok) throw new Error(`priming the cache failed: ${outcome.error.message}`);
}
