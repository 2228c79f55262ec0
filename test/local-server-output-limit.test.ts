import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { client as geminiClient, MODEL as GEMINI_MODEL, serversClosedAfterEach } from './fixtures/local-server/client.js';

/*
 * The output limit a request sets cuts the simulated reply as each API cuts it: the text at that
 * many tokens (4 characters each here), and the API's own length ending, read through its official
 * SDK, streamed and not. A reply within the limit ends as before.
 */

const start = serversClosedAfterEach();
const LONG = 'TOKENS 200';
const CUT_CHARS = 10 * 4;

describe('local server: a reply past the request\'s output limit is cut, with each API\'s length ending', () => {
  it('Gemini: generationConfig.maxOutputTokens, finishReason MAX_TOKENS', async () => {
    const server = await start();
    const ai = geminiClient(server.url);
    const cut = await ai.models.generateContent({ model: GEMINI_MODEL, contents: LONG, config: { maxOutputTokens: 10 } });
    expect(cut.candidates?.[0]?.finishReason).toBe('MAX_TOKENS');
    expect(cut.text).toHaveLength(CUT_CHARS);
    expect(cut.usageMetadata?.candidatesTokenCount).toBe(10);
    let streamed = '';
    let finish: string | undefined;
    for await (const chunk of await ai.models.generateContentStream({ model: GEMINI_MODEL, contents: LONG, config: { maxOutputTokens: 10 } })) {
      streamed += chunk.text ?? '';
      finish = chunk.candidates?.[0]?.finishReason ?? finish;
    }
    expect({ streamed: streamed.length, finish }).toEqual({ streamed: CUT_CHARS, finish: 'MAX_TOKENS' });
    const whole = await ai.models.generateContent({ model: GEMINI_MODEL, contents: 'REPLY short', config: { maxOutputTokens: 10 } });
    expect(whole.candidates?.[0]?.finishReason).toBe('STOP');
  });

  it('OpenAI Chat Completions: max_completion_tokens (or max_tokens), finish_reason length', async () => {
    const server = await start();
    const ai = new OpenAI({ apiKey: 'sk-test', baseURL: `${server.url}/v1`, maxRetries: 0 });
    const messages = [{ role: 'user' as const, content: LONG }];
    const cut = await ai.chat.completions.create({ model: 'gpt-4.1', messages, max_completion_tokens: 10 });
    expect(cut.choices[0]?.finish_reason).toBe('length');
    expect(cut.choices[0]?.message.content).toHaveLength(CUT_CHARS);
    const older = await ai.chat.completions.create({ model: 'gpt-4.1', messages, max_tokens: 10 });
    expect(older.choices[0]?.finish_reason).toBe('length');
    let finish: string | null | undefined;
    for await (const chunk of await ai.chat.completions.create({ model: 'gpt-4.1', messages, max_completion_tokens: 10, stream: true })) finish = chunk.choices[0]?.finish_reason ?? finish;
    expect(finish).toBe('length');
    const whole = await ai.chat.completions.create({ model: 'gpt-4.1', messages: [{ role: 'user', content: 'REPLY short' }], max_completion_tokens: 10 });
    expect(whole.choices[0]?.finish_reason).toBe('stop');
  });

  it('OpenAI Responses: max_output_tokens, status incomplete (reason max_output_tokens)', async () => {
    const server = await start();
    const ai = new OpenAI({ apiKey: 'sk-test', baseURL: `${server.url}/v1`, maxRetries: 0 });
    const cut = await ai.responses.create({ model: 'gpt-5.6', input: LONG, max_output_tokens: 10 });
    expect(cut).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } });
    expect(cut.output_text).toHaveLength(CUT_CHARS);
    const events: string[] = [];
    for await (const event of await ai.responses.create({ model: 'gpt-5.6', input: LONG, max_output_tokens: 10, stream: true })) events.push(event.type);
    expect(events.at(-1)).toBe('response.incomplete');
    const whole = await ai.responses.create({ model: 'gpt-5.6', input: 'REPLY short', max_output_tokens: 10 });
    expect(whole.status).toBe('completed');
  });

  it('Anthropic Messages: max_tokens, stop_reason max_tokens', async () => {
    const server = await start();
    const ai = new Anthropic({ apiKey: 'sk-ant-test', baseURL: server.url, maxRetries: 0 });
    const messages = [{ role: 'user' as const, content: LONG }];
    const cut = await ai.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 10, messages });
    expect(cut.stop_reason).toBe('max_tokens');
    expect(cut.content[0]?.type === 'text' ? cut.content[0].text : '').toHaveLength(CUT_CHARS);
    expect(cut.usage.output_tokens).toBe(10);
    const streamed = await ai.messages.stream({ model: 'claude-sonnet-4-5', max_tokens: 10, messages }).finalMessage();
    expect(streamed.stop_reason).toBe('max_tokens');
    const whole = await ai.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 10, messages: [{ role: 'user', content: 'REPLY short' }] });
    expect(whole.stop_reason).toBe('end_turn');
  });
});
