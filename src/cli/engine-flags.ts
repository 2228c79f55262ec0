import type { ForkEngineOptions, BuiltInProviderOption as ProviderOption } from '../engine/options.js';
import { ENGINE_OPTION_FLAGS, type EngineOptionFlag, type EngineOptionFlagName } from '../engine/option-flags.js';
import { defaultOf, valuesOf } from '../engine/option-read.js';
import { EngineOptionsSchema } from '../engine/option-schema.js';
import { ANTHROPIC_PRESET, CHAT_PRESETS } from '../model/presets.js';
import { findProvider, providerModule } from '../model/providers/index.js';
import { shapeNamed } from '../shapes/registry.js';
import type { SessionFormat } from '../shapes/registry.js';
import type { FlagTable } from './flags.js';
import { quoted } from './parse-flags.js';
import { UsageError } from './usage-error.js';
import { readFileSync } from 'node:fs';
import { PriceTableSchema, type PriceTable } from '../model/prices.js';

/** Help lines are wrapped to this many characters (the flag's column comes before them). */
const HELP_WIDTH = 76;

/** Flags shared by `run` and `prompt`: provider, pool and fork settings. Defaults are the engine's own. */
export const ENGINE_FLAGS = {
  provider: {
    type: 'string',
    arg: 'NAME',
    group: 'Provider and pool',
    help: "local, gemini, openai, deepseek, dashscope, openai-compatible (vLLM, SGLang…;\nneeds --base-url), anthropic, or ai-sdk:PACKAGE[.METHOD]/MODEL (an AI SDK\nprovider package of your project, for an ai-sdk session: ai-sdk:@ai-sdk/mistral/\nmistral-large-latest; --base-url is its baseURL, --api-key-env its apiKey). It\nmust speak the session's format. Default: gemini for a Gemini session when\nGEMINI_API_KEY or GOOGLE_API_KEY is set, else the built-in local server (a\nscripted, simulated model)",
  },
  model: { type: 'string', arg: 'NAME', group: 'Provider and pool', help: "run the whole fan-out on this model instead of the session's" },
  'base-url': {
    type: 'string',
    arg: 'URL',
    group: 'Provider and pool',
    help: "the provider's endpoint (gemini: also GOOGLE_GEMINI_BASE_URL; openai: also\nOPENAI_BASE_URL; local: a server already running, e.g. forkpool serve)",
  },
  'api-key-env': {
    type: 'string',
    arg: 'NAME',
    group: 'Provider and pool',
    help: "read the API key from this environment variable (default: the provider's:\nOPENAI_API_KEY, DEEPSEEK_API_KEY, DASHSCOPE_API_KEY, ANTHROPIC_API_KEY)",
  },
  'reports-cached-tokens': {
    type: 'boolean',
    group: 'Provider and pool',
    help: 'openai-compatible: the server reports cached tokens (vLLM with\n--enable-prompt-tokens-details, SGLang with --enable-cache-report), so a usage\nwithout them means 0; without this flag the report says unknown',
  },
  ...optionFlags(),
  workspace: { type: 'string', arg: 'DIR', group: 'Tools', help: 'read-only read_file, list_dir, glob, grep confined to DIR' },
  tools: { type: 'string', arg: 'MODULE', group: 'Tools', help: 'tools made with defineTool, from a JS/TS module' },
  'output-format': { type: 'string', arg: 'text|json|stream-json', group: 'Output', help: '(default text)' },
} as const satisfies FlagTable;

export type OutputFormat = 'text' | 'json' | 'stream-json';

/** An engine option's value where a path names it ({ retry: { maxAttempts } } for ['retry', 'maxAttempts']). */
type ValueAt<T, P> = P extends readonly [infer K, ...infer R]
  ? K extends keyof NonNullable<T>
    ? ValueAt<NonNullable<T>[K], R>
    : never
  : T;

type OptionFlagTable = {
  [K in EngineOptionFlagName]: {
    type: NonNullable<ValueAt<ForkEngineOptions, (typeof ENGINE_OPTION_FLAGS)[K]['option']>> extends boolean ? 'boolean' : 'string';
    arg?: string;
    group: string;
    help: string;
  };
};

/**
 * The flags of the engine's options, from their schema (engine/option-schema.ts): the name and
 * help line its flag table gives, the values, range and default the schema has (what help shows
 * is what the engine applies).
 */
function optionFlags(): OptionFlagTable {
  const table: Record<string, OptionFlagTable[EngineOptionFlagName]> = {};
  for (const name of Object.keys(ENGINE_OPTION_FLAGS) as EngineOptionFlagName[]) table[name] = optionFlag(name);
  return table as OptionFlagTable;
}

/** An engine option's flag; `help`: what it does for this command, when it says more than the engine's. */
export function optionFlag<K extends EngineOptionFlagName>(name: K, help?: string): OptionFlagTable[K] {
  const flag: EngineOptionFlag = ENGINE_OPTION_FLAGS[name];
  const values = valuesOf(EngineOptionsSchema, flag.option);
  const fallback = defaultOf(EngineOptionsSchema, flag.option);
  const said = fallback === undefined ? '' : 'text' in fallback ? `default: ${fallback.text}` : `default ${fallback.value}`;
  const what = help ?? flag.help;
  const text = what === '' ? `(${said})` : said === '' ? what : `${what} (${said})`;
  const arg =
    flag.arg ??
    (values.kind === 'enum' ? [...values.values, ...(flag.extraValues ?? [])].join('|') : values.kind === 'boolean' ? undefined : 'N');
  return {
    type: values.kind === 'boolean' ? 'boolean' : 'string',
    ...(arg !== undefined ? { arg } : {}),
    group: flag.group,
    help: text.includes('\n') ? text : wrap(text, HELP_WIDTH),
  } as OptionFlagTable[K];
}

function wrap(text: string, width: number): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  return [...lines, line].join('\n');
}

/** The flags' values as parsed: the engine options' by their flag names, the provider's and output's by theirs. */
export type EngineFlagValues = {
  [K in EngineOptionFlagName]?: (OptionFlagTable[K]['type'] extends 'boolean' ? boolean : string) | undefined;
} & {
  provider?: string | undefined;
  model?: string | undefined;
  'base-url'?: string | undefined;
  'api-key-env'?: string | undefined;
  'reports-cached-tokens'?: boolean | undefined;
  'output-format'?: string | undefined;
};

export function outputFormat(values: EngineFlagValues): OutputFormat {
  return oneOf('--output-format', values['output-format'], ['text', 'json', 'stream-json'] as const) ?? 'text';
}

const PROVIDERS = ['local', 'gemini', 'openai', 'deepseek', 'dashscope', 'openai-compatible', 'anthropic'] as const;
const CHAT_PROVIDERS: readonly string[] = ['openai', 'deepseek', 'dashscope', 'openai-compatible'];
const KEYED_PROVIDERS: readonly string[] = [...CHAT_PROVIDERS, 'anthropic'];

/** Whether a provider's module speaks a shape (its `shapes`): the CLI keeps no table of its own. */
function speaks(kind: string, format: string): boolean {
  return findProvider(kind)?.shapes.includes(format as SessionFormat) ?? false;
}

/** `a, b or c` */
const orList = (words: readonly string[]) => (words.length > 1 ? `${words.slice(0, -1).join(', ')} or ${words.at(-1)}` : (words[0] ?? ''));

/** The CLI's real providers (not the simulator) that speak a shape, in the order --help lists them. */
const realProvidersFor = (format: string) => PROVIDERS.filter((kind) => kind !== 'local' && speaks(kind, format));

/** What to choose for a session of a shape: the providers that speak it, the simulator last. */
function providersFor(format: string): string {
  const kinds: string[] = [...realProvidersFor(format), ...(speaks('local', format) ? ['local'] : [])];
  return kinds.length === 0 ? 'a provider that speaks it' : `--provider ${orList(kinds)}`;
}

/**
 * Which provider runs. A Gemini session follows the rule users of Gemini CLI expect (a key in the
 * environment means the real API); a Chat Completions session runs on the local server unless a
 * provider is named. A provider that does not speak the session's format is a usage error.
 */
function chooseProvider(values: EngineFlagValues, env: NodeJS.ProcessEnv, format: SessionFormat): ProviderOption {
  // A shape that only an AI SDK provider speaks runs through one (the CLI names it ai-sdk:…).
  const onlyAiSdk = speaks('ai-sdk', format) && !PROVIDERS.some((kind) => speaks(kind, format));
  if (values.provider?.startsWith(AI_SDK_PREFIX) || onlyAiSdk) return aiSdkProvider(values, format);
  const kind = oneOf('--provider', values.provider, PROVIDERS);
  const keyEnv = values['api-key-env'];
  if (keyEnv !== undefined && (kind === undefined || !KEYED_PROVIDERS.includes(kind))) {
    throw new UsageError('--api-key-env: only for --provider openai, deepseek, dashscope, openai-compatible or anthropic');
  }
  if (kind !== undefined && kind !== 'local' && !speaks(kind, format)) {
    // The provider's first shape is the API it is known by (OpenAI's: Chat Completions; it speaks Responses too).
    const own = providerModule(kind).shapes[0];
    const api = own === undefined ? 'no shape' : shapeNamed(own).api;
    throw new UsageError(
      `--provider ${kind} speaks ${api}, but the session is in ${shapeNamed(format).label}: choose ${providersFor(format)}, or convert the session with forkpool convert`,
    );
  }
  if (kind === 'anthropic') {
    return { kind, ...(keyEnv !== undefined ? { apiKeyEnv: keyEnv } : {}), ...(values['base-url'] ? { baseUrl: values['base-url'] } : {}) };
  }
  const reports = values['reports-cached-tokens'] === true;
  if (reports && kind !== 'openai-compatible') {
    throw new UsageError(
      '--reports-cached-tokens: only for --provider openai-compatible (the other providers always report cached tokens)',
    );
  }
  if (kind !== undefined && CHAT_PROVIDERS.includes(kind)) {
    const chat = kind as 'openai' | 'deepseek' | 'dashscope' | 'openai-compatible';
    if (chat === 'openai-compatible' && !values['base-url'])
      throw new UsageError('--provider openai-compatible needs --base-url (e.g. http://localhost:8000/v1)');
    return {
      kind: chat,
      ...(keyEnv !== undefined ? { apiKeyEnv: keyEnv } : {}),
      ...(values['base-url'] ? { baseUrl: values['base-url'] } : {}),
      ...(reports ? { reportsCachedTokens: true } : {}),
    };
  }
  const hasKey = Boolean(env.GEMINI_API_KEY || env.GOOGLE_API_KEY);
  const baseUrl = values['base-url'] ?? env.GOOGLE_GEMINI_BASE_URL;
  // Gemini CLI's rule: a key in the environment means the real API, for a session it speaks.
  // A provider kind, not a format.
  if (kind === 'gemini' || (kind === undefined && hasKey && speaks('gemini', format))) {
    if (!hasKey)
      throw new UsageError(
        'GEMINI_API_KEY is not set: export it (or GOOGLE_API_KEY), or leave out --provider gemini to run on the local simulator',
      );
    return { kind: 'gemini', ...(baseUrl ? { baseUrl } : {}) };
  }
  return { kind: 'local', ...(values['base-url'] ? { baseUrl: values['base-url'] } : {}) };
}

const AI_SDK_PREFIX = 'ai-sdk:';

/**
 * `--provider ai-sdk:PACKAGE[.METHOD]/MODEL`: an AI SDK provider package of the user's project (a
 * scoped name is two segments), the provider's method that makes the model (absent: the provider
 * called as a function), and the model id (the rest, slashes included). Its factory is the package's
 * own `create…` function; --base-url is its baseURL setting and --api-key-env its apiKey.
 */
function aiSdkProvider(values: EngineFlagValues, format: SessionFormat): ProviderOption {
  const usage = '--provider ai-sdk:PACKAGE[.METHOD]/MODEL (e.g. ai-sdk:@ai-sdk/openai.chat/gpt-4.1-mini)';
  if (values.provider === undefined || !values.provider.startsWith(AI_SDK_PREFIX)) {
    throw new UsageError(
      `the session is in ${shapeNamed(format).label}: it runs through an AI SDK provider package of your project: ${usage}`,
    );
  }
  if (!speaks('ai-sdk', format)) {
    const takes = providerModule('ai-sdk').shapes.map((shape) => shapeNamed(shape).label);
    throw new UsageError(
      `--provider ${values.provider} takes a session in ${orList(takes)}, but the session is in ${shapeNamed(format).label}`,
    );
  }
  const segments = values.provider.slice(AI_SDK_PREFIX.length).split('/');
  const take = segments[0]?.startsWith('@') ? 2 : 1;
  const named = segments.slice(0, take).join('/');
  const model = segments.slice(take).join('/');
  const dot = named.lastIndexOf('.');
  const [pkg, method] = dot > named.indexOf('/') ? [named.slice(0, dot), named.slice(dot + 1)] : [named, undefined];
  if (pkg === '' || pkg === '@' || model === '' || method === '') throw new UsageError(`--provider ${values.provider}: ${usage}`);
  const keyEnv = values['api-key-env'];
  const settings = {
    ...(values['base-url'] ? { baseURL: values['base-url'] } : {}),
    ...(keyEnv !== undefined ? { apiKey: { env: keyEnv } } : {}),
  };
  return { kind: 'ai-sdk', package: pkg, ...(method !== undefined ? { method } : {}), model, settings };
}

/**
 * The process that calls the model needs its provider's key: a missing one is bad usage, named
 * with the variable and the flag, before anything runs. (A distributed run's coordinator calls no
 * model: its workers check their own.) The key itself is never printed.
 */
export function requireApiKey(provider: ProviderOption | undefined, env: NodeJS.ProcessEnv): void {
  // An AI SDK provider's settings name their variables: it checks them as it connects.
  // A provider kind, not a format.
  if (provider === undefined || provider.kind === 'local' || provider.kind === 'gemini' || provider.kind === 'ai-sdk') return;
  const named = provider.apiKeyEnv;
  const name = named ?? (provider.kind === 'anthropic' ? ANTHROPIC_PRESET.apiKeyEnv : CHAT_PRESETS[provider.kind].apiKeyEnv);
  if (name === undefined || env[name]?.trim()) return;
  throw new UsageError(
    named !== undefined
      ? `--api-key-env ${named}: that variable is not set (export it)`
      : `${name} is not set: export it, or pass --api-key-env NAME to read the key from another variable`,
  );
}

/**
 * An AI SDK provider of the project (`--provider ai-sdk:…`): its package, factory, method and the
 * variables its settings read, checked before anything runs, so that what is missing is a usage
 * error (exit 2) naming the flag, as a missing key is.
 */
export async function requireProjectProvider(provider: ProviderOption | undefined, flag: string | undefined): Promise<void> {
  // A provider kind, not a format.
  if (provider?.kind !== 'ai-sdk') return;
  // Loaded only for this provider: no other command start pays for it.
  const [{ checkAiSdkModel }, { aiSdkSpecOf }] = await Promise.all([import('../model/ai-sdk.js'), import('../model/providers/ai-sdk.js')]);
  try {
    await checkAiSdkModel(aiSdkSpecOf(provider));
  } catch (err) {
    if (err instanceof TypeError)
      throw new UsageError(`${flag !== undefined ? `--provider ${flag}` : "the session's AI SDK provider"}: ${err.message}`);
    throw err;
  }
}

/** What the run's summary calls the provider. */
export function providerLabel(provider: ProviderOption): string {
  const labels: Record<ProviderOption['kind'], string> = {
    local: 'local simulated model',
    gemini: 'Gemini API',
    openai: 'OpenAI',
    deepseek: 'DeepSeek',
    dashscope: 'DashScope',
    'openai-compatible': 'OpenAI-compatible server',
    anthropic: 'Anthropic',
    'ai-sdk': 'AI SDK',
  };
  return labels[provider.kind];
}

/** The notice printed when the built-in simulator runs: how to use a real API instead. */
export function localNotice(format: SessionFormat): string {
  const real = realProvidersFor(format);
  const only = real.length === 1 ? real[0] : undefined;
  const how = speaks('gemini', format)
    ? 'set GEMINI_API_KEY to use Gemini'
    : only !== undefined
      ? `pass --provider ${only}${keyEnvOf(only) === undefined ? '' : ` (${keyEnvOf(only)})`} to use the real API`
      : real.length > 1
        ? `pass --provider ${orList(real)} to use a real API`
        : 'no built-in provider speaks its shape';
  return `forkpool: using the built-in local server (a scripted, simulated model); ${how}\n`;
}

/** The variable a built-in provider reads its key from by default. */
function keyEnvOf(kind: string): string | undefined {
  if (kind === 'anthropic') return ANTHROPIC_PRESET.apiKeyEnv;
  return Object.hasOwn(CHAT_PRESETS, kind) ? CHAT_PRESETS[kind as keyof typeof CHAT_PRESETS].apiKeyEnv : undefined;
}

/** The engine's options from the flags: the CLI names built-in providers only. */
type CliEngineOptions = ForkEngineOptions & { provider: ProviderOption };

export function engineOptions(values: EngineFlagValues, env: NodeJS.ProcessEnv, format: SessionFormat): CliEngineOptions {
  const options: CliEngineOptions = { provider: chooseProvider(values, env, format) };
  for (const name of Object.keys(ENGINE_OPTION_FLAGS) as EngineOptionFlagName[]) {
    const given = values[name];
    if (given === undefined || given === false) continue;
    const flag: EngineOptionFlag = ENGINE_OPTION_FLAGS[name];
    const value = typeof given === 'boolean' ? given : flag.file ? readPrices(given) : flagValue(name, flag, given);
    // 'parent' is a property of one fan-out, not of the engine: see parentWarm().
    if (flag.extraValues?.includes(value as string)) continue;
    setAt(options as Record<string, unknown>, flag.option, value);
  }
  return options;
}

/** A flag's value as its option's schema takes it: a usage error naming the flag and what it must be. */
function flagValue(name: string, flag: EngineOptionFlag, value: string): string | number {
  const flagName = `--${name}`;
  const values = valuesOf(EngineOptionsSchema, flag.option);
  switch (values.kind) {
    case 'enum':
      return oneOf(flagName, value, [...values.values, ...(flag.extraValues ?? [])]) as string;
    case 'integer': {
      const n = Number(value);
      if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < values.min) {
        throw new UsageError(`${flagName}: must be a ${values.min >= 1 ? 'positive' : 'non-negative'} integer (got ${quoted(value)})`);
      }
      if (values.max !== undefined && n > values.max)
        throw new UsageError(`${flagName}: at most ${values.max} (got ${n})${flag.overMax !== undefined ? `; ${flag.overMax}` : ''}`);
      return n;
    }
    case 'number': {
      const amount = Number(value);
      if (!/^\d+(\.\d+)?$/.test(value.trim()) || !(amount > values.above))
        throw new UsageError(`${flagName}: ${flag.invalid ?? 'must be a positive number'}, got ${quoted(value)}`);
      return amount;
    }
    default:
      throw new Error(`${flagName}: option ${flag.option.join('.')} has no flag form`);
  }
}

/** Sets a nested option ({ retry: { maxAttempts } }), keeping what its object already holds. */
function setAt(target: Record<string, unknown>, path: readonly string[], value: unknown): void {
  const [key, ...rest] = path as [string, ...string[]];
  if (rest.length === 0) {
    target[key] = value;
    return;
  }
  const inner = (target[key] ?? {}) as Record<string, unknown>;
  target[key] = inner;
  setAt(inner, rest, value);
}

/** `--warmup parent`: the caller says the parent has just sent this prefix. */
export function parentWarm(values: EngineFlagValues): boolean {
  return values.warmup === 'parent';
}

function oneOf<const T extends readonly string[]>(flag: string, value: string | undefined, allowed: T): T[number] | undefined {
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) {
    throw new UsageError(`${flag}: must be one of ${allowed.join(', ')} (got ${quoted(value)})`);
  }
  return value as T[number];
}

/** --prices FILE: JSON as PriceTableSchema says; a file that cannot be read or is wrong is a usage error naming the file and the field. */
function readPrices(file: string): PriceTable {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new UsageError(`--prices ${file}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const parsed = PriceTableSchema.safeParse(json);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const at = issue?.path.map((p) => (typeof p === 'number' ? `[${p}]` : `["${String(p)}"]`)).join('') ?? '';
  throw new UsageError(
    `--prices ${file}: ${at ? `${at}: ` : ''}${issue?.message ?? 'not a price table'} (by model: { "input", "cachedInput", "cacheWrite"?, "cacheWrite1h"?, "output" } in USD per million tokens, "tiers"?, "cacheStoragePerHour"?, "contextWindow"?: docs/prices.md)`,
  );
}
