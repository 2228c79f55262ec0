import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { client as geminiClient, MODEL as GEMINI_MODEL, serversClosedAfterEach } from './fixtures/local-server/client.js';

/*
 * The local server honours each API's output limit, through the official SDKs (without streaming
 * here; forkpool's own clients stream, and the CLI tests of cut answers go that way): a text reply
 * past the limit ends at it with the API's own word, and keeps what came; a reply within it, or a
 * reply of calls, is not cut.
 */

const start = serversClosedAfterEach();
const LONG = 'TOKENS 200';
const LIMIT = 20;

describe('the local server cuts a reply at the request’s output limit', () => {
  it('Gemini: generationConfig.maxOutputTokens ends it with finishReason MAX_TOKENS', async () => {
    const server = await start();
    const ai = geminiClient(server.url);
    const cut = await ai.models.generateContent({ model: GEMINI_MODEL, contents: LONG, config: { maxOutputTokens: LIMIT } });
    expect(cut.candidates?.[0]?.finishReason).toBe('MAX_TOKENS');
    expect(cut.text).toHaveLength(LIMIT * 4);
    expect(cut.usageMetadata?.candidatesTokenCount).toBe(LIMIT);
    const whole = await ai.models.generateContent({ model: GEMINI_MODEL, contents: LONG, config: { maxOutputTokens: 500 } });
    expect(whole.candidates?.[0]?.finishReason).toBe('STOP');
  });

  it('Chat Completions: max_completion_tokens (or max_tokens) ends it with finish_reason "length"; a call is not cut', async () => {
    const server = await start();
    const openai = new OpenAI({ apiKey: 'k', baseURL: `${server.url}/v1`, maxRetries: 0 });
    const cut = await openai.chat.completions.create({
      model: 'gpt-4.1-mini',
      messages: [{ role: 'user', content: LONG }],
      max_completion_tokens: LIMIT,
    });
    expect(cut.choices[0]?.finish_reason).toBe('length');
    expect(cut.choices[0]?.message.content).toHaveLength(LIMIT * 4);
    expect(cut.usage?.completion_tokens).toBe(LIMIT);
    const older = await openai.chat.completions.create({
      model: 'gpt-4.1-mini',
      messages: [{ role: 'user', content: LONG }],
      max_tokens: LIMIT,
    });
    expect(older.choices[0]?.finish_reason).toBe('length');
    const tools = [{ type: 'function' as const, function: { name: 'lookup', parameters: { type: 'object' } } }];
    const call = await openai.chat.completions.create({
      model: 'gpt-4.1-mini',
      messages: [{ role: 'user', content: `CALL lookup {"key":"${'k'.repeat(200)}"}` }],
      tools,
      max_completion_tokens: 1,
    });
    expect(call.choices[0]?.finish_reason).toBe('tool_calls');
  });

  it('Anthropic: max_tokens ends it with stop_reason "max_tokens"', async () => {
    const server = await start();
    const anthropic = new Anthropic({ apiKey: 'k', baseURL: server.url, maxRetries: 0 });
    const cut = await anthropic.messages.create({
      model: 'claude-sonnet-4-5',
      max_tokens: LIMIT,
      messages: [{ role: 'user', content: LONG }],
    });
    expect(cut.stop_reason).toBe('max_tokens');
    expect(cut.content[0]?.type === 'text' ? cut.content[0].text : '').toHaveLength(LIMIT * 4);
    expect(cut.usage.output_tokens).toBe(LIMIT);
    const whole = await anthropic.messages.create({
      model: 'claude-sonnet-4-5',
      max_tokens: 500,
      messages: [{ role: 'user', content: LONG }],
    });
    expect(whole.stop_reason).toBe('end_turn');
  });

  it('Responses: max_output_tokens leaves the response incomplete, incomplete_details saying why', async () => {
    const server = await start();
    const openai = new OpenAI({ apiKey: 'k', baseURL: `${server.url}/v1`, maxRetries: 0 });
    const cut = await openai.responses.create({ model: 'gpt-4.1-mini', input: LONG, max_output_tokens: LIMIT, store: false });
    expect(cut.status).toBe('incomplete');
    expect(cut.incomplete_details).toEqual({ reason: 'max_output_tokens' });
    expect(cut.completed_at ?? null).toBeNull();
    expect(cut.output_text).toHaveLength(LIMIT * 4);
    expect(cut.output[0]).toMatchObject({ type: 'message', status: 'incomplete' });
    const whole = await openai.responses.create({ model: 'gpt-4.1-mini', input: LONG, max_output_tokens: 500, store: false });
    expect(whole.status).toBe('completed');
  });
});
