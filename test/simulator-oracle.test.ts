import { describe, expect, it } from 'vitest';
// Internal: what the client assumes, and what the simulator does, each kept in its own place.
import { DEEPSEEK_UNIT_GRANULARITY_TOKENS, DEEPSEEK_UNIT_INTERVAL_TOKENS } from '../src/model/deepseek-units.js';
import { takesCacheBreakpoints as clientTakesBreakpoints } from '../src/shapes/openai-breakpoints.js';
import * as simulator from '../src/local-server/openai/cache-presets.js';

/*
 * The simulator imports nothing of the client it judges. Where the client must assume what the
 * provider does (numbers its documentation leaves out), the two copies must agree.
 */
describe('the simulator and the client agree on what they each keep', () => {
  it("on DeepSeek's cache prefix units", () => {
    expect(simulator.DEEPSEEK_UNIT_INTERVAL_TOKENS).toBe(DEEPSEEK_UNIT_INTERVAL_TOKENS);
    expect(simulator.DEEPSEEK_UNIT_GRANULARITY_TOKENS).toBe(DEEPSEEK_UNIT_GRANULARITY_TOKENS);
  });

  it.each([
    ['gpt-5.6', true],
    ['gpt-5.6-sol', true],
    ['openai/gpt-6-luna', true],
    ['gpt-5.5', false],
    ['gpt-5', false],
    ['gpt-4o', false],
    ['gpt-5.60', true],
    ['o3', false],
    ['deepseek-chat', false],
  ])('on which OpenAI models take cache breakpoints: %s → %s', (model, takes) => {
    expect(simulator.takesCacheBreakpoints(model)).toBe(takes);
    expect(clientTakesBreakpoints(model)).toBe(takes);
  });
});
