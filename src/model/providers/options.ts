/* `options.provider` as the engine's options name each provider (the registry checks its keys). */
import type { AiSdkSetting } from '../types.js';

/** An OpenAI Chat Completions provider: a preset, or any compatible server at `baseUrl`. */
type ChatProviderKind = 'openai' | 'deepseek' | 'dashscope' | 'openai-compatible';

/** A built-in provider, as `options.provider` names it. */
export type BuiltInProviderOption =
  /** `url`: the old name of `baseUrl` (deprecated). */
  | { kind: 'local'; baseUrl?: string /** @deprecated Use baseUrl. */; url?: string }
  | { kind: 'gemini'; apiKey?: string; baseUrl?: string }
  /**
   * `apiKeyEnv`: the environment variable to read the key from, in whichever process calls the
   * model (default: the preset's, e.g. OPENAI_API_KEY), so the descriptor itself holds no key.
   */
  /**
   * `reportsCachedTokens` (openai-compatible only: vLLM, SGLang, …) when the server runs with
   * --enable-prompt-tokens-details (SGLang: --enable-cache-report): a usage without cached tokens then
   * means 0, not unknown. The other kinds refuse it (they always report cached tokens).
   */
  /**
   * `mode` (openai only; the other kinds refuse it): how a Responses session's calls are made, as
   * the parent's agent makes its own: `stream` (the default) or `generate`, one response per call
   * (`stream: false`, as an OpenAI Agents SDK `run()` without `stream: true` sends it). A Responses
   * object echoes the instructions, which a stream carries three times. Under `generate` a response
   * begins when it has arrived whole (`onResponseStart`; a warm-up's lead holds the other forks until
   * then). Chat Completions sessions always stream.
   */
  | {
      kind: ChatProviderKind;
      apiKey?: string;
      apiKeyEnv?: string;
      baseUrl?: string;
      reportsCachedTokens?: boolean;
      mode?: 'stream' | 'generate';
    }
  /** Anthropic's Messages API: the key from `apiKey`, else `apiKeyEnv` (default ANTHROPIC_API_KEY). */
  | { kind: 'anthropic'; apiKey?: string; apiKeyEnv?: string; baseUrl?: string }
  /**
   * A model through the Vercel AI SDK, for sessions in its shape: a provider package of the user's
   * project, its factory, the factory's method (absent: the provider called as a function), the
   * model id, and the factory's settings (a key as `{ env: NAME }`, never its value).
   */
  | {
      kind: 'ai-sdk';
      package: string;
      factory?: string;
      method?: string;
      model: string;
      settings?: Readonly<Record<string, AiSdkSetting>>;
      mode?: 'stream' | 'generate';
    };

export type ProviderOption =
  | BuiltInProviderOption
  /**
   * A provider of one's own (docs/providers.md, "Adding a provider"): `module` is the URL of the module that
   * exports it as `provider`; the other keys are the ones it declares (`optionKeys`).
   */
  | { kind: string; module: string; [option: string]: string | undefined };
