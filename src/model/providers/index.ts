import { sessionFormat, type ParentSession, type SessionFormat } from '../../shapes/registry.js';
import type { ProviderModule } from '../module.js';
import type { CachePlan, PlanInput } from '../plan.js';
import type { ModelProvider, ProviderConfig } from '../types.js';
import { aiSdkModule } from './ai-sdk.js';
import { anthropicModule } from './anthropic.js';
import { geminiModule } from './gemini.js';
import { localModule } from './local.js';
import { dashscopeModule, deepseekModule, openaiCompatibleModule, openaiModule } from './openai-compatible.js';

/*
 * The registry of providers: a descriptor's kind names its module. Adding a provider is a module of
 * its own and a line here (docs/providers.md, "Adding a provider").
 */

const BUILT_IN: readonly ProviderModule[] = [
  localModule,
  geminiModule,
  openaiModule,
  deepseekModule,
  dashscopeModule,
  openaiCompatibleModule,
  anthropicModule,
  aiSdkModule,
];

const modules = new Map<string, ProviderModule>(BUILT_IN.map((m) => [m.kind, m]));

/** Every provider kind the registry knows, in the order errors list them. */
function providerKinds(): string[] {
  return [...modules.keys()];
}

/** How each provider is given, for the errors that list them: the real providers first, then the simulator. */
export function providerUsage(): string {
  const ordered = [...modules.values()].sort((a, b) => Number(a === localModule) - Number(b === localModule));
  return ordered.map((m, i) => (i === ordered.length - 1 && ordered.length > 1 ? `or ${m.usage}` : m.usage)).join('; ');
}

/** Kinds as a list in words: "a", "b" or "c". */
export function providerKindList(): string {
  const quoted = providerKinds().map((k) => JSON.stringify(k));
  return quoted.length > 1 ? `${quoted.slice(0, -1).join(', ')} or ${quoted[quoted.length - 1]}` : (quoted[0] ?? '');
}

/** The module of a provider kind; undefined when no provider of that kind is registered. */
export function findProvider(kind: string): ProviderModule | undefined {
  return modules.get(kind);
}

/**
 * Registers a provider of one's own, imported from `url` (an `import()` specifier, usually a file
 * URL; the module exports it as `provider`). Every thread and process that calls the model imports
 * it once, from the URL its descriptor carries, so the engine needs no line of its own for it.
 * A kind already registered from another module is a TypeError; the same module again is a no-op.
 */
export async function loadProvider(url: string): Promise<ProviderModule> {
  const loaded = loading.get(url) ?? import(url).then((exports: { provider?: unknown }) => register(exports.provider, url));
  loading.set(url, loaded);
  loaded.catch(() => loading.delete(url));
  return loaded;
}

const loading = new Map<string, Promise<ProviderModule>>();
const origins = new Map<string, string>();

function register(candidate: unknown, url: string): ProviderModule {
  const m = candidate as Partial<ProviderModule> | undefined;
  const functions = ['connect', 'plan', 'client'] as const;
  if (
    m === null ||
    typeof m !== 'object' ||
    typeof m.kind !== 'string' ||
    m.kind === '' ||
    !Array.isArray(m.shapes) ||
    !Array.isArray(m.optionKeys) ||
    functions.some((name) => typeof m[name] !== 'function')
  ) {
    throw new TypeError(
      `provider module ${url}: its export \`provider\` must be a ProviderModule (kind, shapes, optionKeys, usage, connect, plan, client)`,
    );
  }
  const module = m as ProviderModule;
  const known = modules.get(module.kind);
  if (known !== undefined && known !== module) {
    throw new TypeError(
      `provider module ${url}: kind '${module.kind}' is already registered${origins.has(module.kind) ? ` by ${origins.get(module.kind)}` : ' (built in)'}`,
    );
  }
  modules.set(module.kind, module);
  origins.set(module.kind, url);
  return module;
}

/** The module of a descriptor's kind: an unknown kind is a TypeError listing every known one. */
export function providerModule(kind: string): ProviderModule {
  const found = modules.get(kind);
  if (found === undefined) {
    throw new TypeError(`unknown provider kind ${JSON.stringify(kind)}: the kinds are ${providerKindList()}`);
  }
  return found;
}

/**
 * The model client for a descriptor and a session's shape (@google/genai for `gemini`, the openai
 * SDK for `openai-chat`, @anthropic-ai/sdk for `anthropic-messages`). A provider that does not
 * speak the shape is a TypeError naming both; a missing key or base URL is a TypeError naming the
 * variable to set or `baseUrl`. Keys are handed to the SDK client only: they never go into messages
 * or results (a server that echoes one back has it redacted).
 */
export function createProvider(config: ProviderConfig, shape: SessionFormat): ModelProvider {
  return speaking(config.kind, shape).client(config, shape);
}

/**
 * The cache plan of a provider kind for a session (its shape read from it), resolved by the
 * provider's module; a provider that does not speak the shape is a TypeError naming both.
 */
export function resolvePlan(kind: string, input: Omit<PlanInput, 'shape'> & { session: Readonly<ParentSession> }): CachePlan {
  const shape = sessionFormat(input.session);
  return speaking(kind, shape).plan({ ...input, shape });
}

function speaking(kind: string, shape: SessionFormat): ProviderModule {
  const module = providerModule(kind);
  if (!module.shapes.includes(shape)) {
    throw new TypeError(
      `provider '${kind}' speaks ${module.shapes.join(' or ')}, not ${shape}: the session's format and the provider must match`,
    );
  }
  return module;
}
