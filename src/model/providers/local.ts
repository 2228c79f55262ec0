import { createAnthropicProvider } from '../anthropic.js';
import { createGenaiProvider } from '../genai.js';
import type { ProviderModule } from '../module.js';
import { createOpenAIChatProvider } from '../openai-chat.js';
import { createOpenAIResponsesProvider } from '../openai-responses.js';
import { CHAT_PRESETS } from '../presets.js';
import { warnDeprecated } from '../../input/deprecation.js';
import { anthropicPlan } from './anthropic.js';
import { geminiPlan } from './gemini.js';
import { chatPlan, responsesPlan } from './openai-compatible.js';

/**
 * The built-in simulator: it speaks every shape, each with the cache rules of the API it stands
 * in for (Chat Completions: the `openai` usage preset it starts with, without cache routing).
 * `{ kind: 'local' }` starts it in a thread of its own, loaded only then; `baseUrl` names one running
 * (`url`, the old name, still does, with a deprecation warning).
 */
export const localModule: ProviderModule = {
  kind: 'local',
  shapes: ['gemini', 'openai-chat', 'openai-responses', 'anthropic-messages'],
  optionKeys: ['baseUrl', 'url'],
  usage: "{ kind: 'local' } for the built-in simulated model ({ kind: 'local', baseUrl } for one already running)",
  checkOption(option) {
    if (option.url === undefined) return;
    if (option.baseUrl !== undefined)
      throw new TypeError("ForkEngine: options.provider { kind: 'local' } takes baseUrl or url (its old name), not both");
    warnDeprecated("provider { kind: 'local', url }");
  },
  async connect(option, common) {
    const running = option.baseUrl ?? option.url;
    if (typeof running === 'string') return { config: { kind: 'local', baseUrl: running, ...common } };
    // Never on the engine's main thread; its module is loaded only here, so a library given a real provider never loads the simulator.
    const { startLocalServerThread } = await import('../../local-server/thread.js');
    const server = await startLocalServerThread({});
    return { config: { kind: 'local', baseUrl: server.url, ...common }, stop: () => server.close() };
  },
  plan(input) {
    if (input.shape === 'openai-responses')
      return responsesPlan('local', CHAT_PRESETS.openai, input, { cacheKey: CHAT_PRESETS.local.takesPromptCacheKey, breakpoints: true });
    if (input.shape === 'openai-chat')
      return chatPlan('local', CHAT_PRESETS.openai, input, {
        cacheKey: CHAT_PRESETS.local.takesPromptCacheKey,
        markers: false,
        breakpoints: true,
      });
    return input.shape === 'anthropic-messages' ? anthropicPlan('local', input) : geminiPlan('local', input);
  },
  client(config, shape) {
    if (shape === 'gemini') return createGenaiProvider(config);
    if (shape === 'openai-responses') return createOpenAIResponsesProvider(config);
    return shape === 'anthropic-messages' ? createAnthropicProvider(config) : createOpenAIChatProvider(config);
  },
  explicitCaches: (config) => createGenaiProvider(config),
};
