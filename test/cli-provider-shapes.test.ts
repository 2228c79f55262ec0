import { describe, expect, it } from 'vitest';
import { engineOptions, localNotice } from '../src/cli/engine-flags.js';
import { UsageError } from '../src/cli/usage-error.js';
import { providerModule } from '../src/model/providers/index.js';
import { registerShape } from '../src/shapes/loading.js';
import { allShapes, findShape, type SessionFormat } from '../src/shapes/registry.js';
import { acmeShape } from './fixtures/shapes/acme.js';

/*
 * Which shapes a provider of the CLI speaks is its provider module's (`ProviderModule.shapes`):
 * the CLI accepts a --provider for a session exactly when the module says it speaks the session's
 * shape, and names what the provider speaks and what to choose from the registries, never from a
 * table of its own. A made-up shape no provider speaks is refused with the same words.
 */

const CLI_PROVIDERS = ['gemini', 'openai', 'deepseek', 'dashscope', 'openai-compatible', 'anthropic'] as const;

if (findShape(acmeShape.format) === undefined) registerShape(acmeShape);

function choose(provider: string, format: string): { ok: true } | { ok: false; message: string } {
  try {
    engineOptions({ provider, 'base-url': 'http://127.0.0.1:9' }, { GEMINI_API_KEY: 'k' }, format as SessionFormat);
    return { ok: true };
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    return { ok: false, message: err.message };
  }
}

describe("--provider and the session's shape", () => {
  for (const shape of allShapes()) {
    it(`a ${shape.format} session: each provider is accepted exactly when its module speaks the shape`, () => {
      const onlyAiSdk =
        CLI_PROVIDERS.every((kind) => !providerModule(kind).shapes.includes(shape.format as SessionFormat)) &&
        providerModule('ai-sdk').shapes.includes(shape.format as SessionFormat);
      for (const kind of CLI_PROVIDERS) {
        const result = choose(kind, shape.format);
        const spoken = providerModule(kind).shapes;
        if (spoken.includes(shape.format as SessionFormat)) {
          expect(result, kind).toEqual({ ok: true });
        } else if (onlyAiSdk) {
          expect(result, kind).toEqual({
            ok: false,
            message: expect.stringContaining(`the session is in ${shape.label}: it runs through an AI SDK provider package`),
          });
        } else {
          const own = findShape(spoken[0] as string);
          expect(result, kind).toEqual({
            ok: false,
            message: expect.stringContaining(`--provider ${kind} speaks ${own?.api}, but the session is in ${shape.label}: choose `),
          });
        }
      }
    });
  }

  it('names the providers that speak the shape, the simulator last; a shape none speaks says so', () => {
    expect(choose('anthropic', 'openai-responses')).toEqual({
      ok: false,
      message:
        '--provider anthropic speaks Anthropic\'s Messages API, but the session is in OpenAI Responses\' shape ("format": "openai-responses"): choose --provider openai or local, or convert the session with forkpool convert',
    });
    expect(choose('gemini', 'acme-chat')).toEqual({
      ok: false,
      message: `--provider gemini speaks Gemini's API, but the session is in ${acmeShape.label}: choose a provider that speaks it, or convert the session with forkpool convert`,
    });
  });

  it("the simulator's notice names the real providers that speak the session's shape", () => {
    expect(localNotice('gemini')).toContain('set GEMINI_API_KEY to use Gemini');
    expect(localNotice('openai-chat')).toContain('pass --provider openai, deepseek, dashscope or openai-compatible to use a real API');
    expect(localNotice('openai-responses')).toContain('pass --provider openai (OPENAI_API_KEY) to use the real API');
    expect(localNotice('anthropic-messages')).toContain('pass --provider anthropic (ANTHROPIC_API_KEY) to use the real API');
    expect(localNotice('acme-chat' as SessionFormat)).toContain('no built-in provider speaks its shape');
  });
});
