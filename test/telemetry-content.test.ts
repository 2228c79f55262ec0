import { describe, expect, it } from 'vitest';
import { replyContent, requestContent } from '../src/shapes/call-content.js';

/*
 * The opt-in content attributes from the Chat Completions and Messages shapes (the Gemini shape is
 * covered end to end in telemetry.test.ts): the conventions' { role, parts } messages, binary parts
 * named by kind and never copied.
 */

describe('content attributes from each request shape', () => {
  it('Chat Completions: system, user parts, tool calls with parsed arguments, tool answers', () => {
    const content = requestContent({
      format: 'openai-chat',
      body: {
        model: 'gpt-x',
        messages: [
          { role: 'developer', content: 'be brief' },
          {
            role: 'user',
            content: [
              { type: 'text', text: 'look' },
              { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
            ],
          },
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'c1', type: 'function', function: { name: 'lookup', arguments: '{"key":"k"}' } }],
          },
          { role: 'tool', tool_call_id: 'c1', content: 'found' },
        ],
      },
    });
    expect(JSON.parse(content.input)).toEqual([
      { role: 'system', parts: [{ type: 'text', content: 'be brief' }] },
      { role: 'user', parts: [{ type: 'text', content: 'look' }, { type: 'image_url' }] },
      { role: 'assistant', parts: [{ type: 'tool_call', id: 'c1', name: 'lookup', arguments: { key: 'k' } }] },
      { role: 'tool', parts: [{ type: 'tool_call_response', id: 'c1', response: 'found' }] },
    ]);
    expect(content.input).not.toContain('AAAA');
    expect(content.system).toBeUndefined();
    expect(JSON.parse(replyContent('openai-chat', { role: 'assistant', content: 'done' }, 'stop'))).toEqual([
      { role: 'assistant', parts: [{ type: 'text', content: 'done' }], finish_reason: 'stop' },
    ]);
  });

  it('Messages: the system apart, thinking as reasoning, tool_use and tool_result', () => {
    const content = requestContent({
      format: 'anthropic-messages',
      body: {
        model: 'claude-x',
        max_tokens: 100,
        system: [{ type: 'text', text: 'be brief', cache_control: { type: 'ephemeral' } }],
        messages: [
          { role: 'user', content: 'look' },
          {
            role: 'assistant',
            content: [
              { type: 'thinking', thinking: 'hmm', signature: 's' },
              { type: 'tool_use', id: 't1', name: 'lookup', input: { key: 'k' } },
            ],
          },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'found' }] },
        ],
      },
    });
    expect(JSON.parse(content.system ?? '')).toEqual([{ type: 'text', content: 'be brief' }]);
    expect(JSON.parse(content.input)).toEqual([
      { role: 'user', parts: [{ type: 'text', content: 'look' }] },
      {
        role: 'assistant',
        parts: [
          { type: 'reasoning', content: 'hmm' },
          { type: 'tool_call', id: 't1', name: 'lookup', arguments: { key: 'k' } },
        ],
      },
      { role: 'tool', parts: [{ type: 'tool_call_response', id: 't1', response: 'found' }] },
    ]);
    const reply = JSON.parse(
      replyContent(
        'anthropic-messages',
        { role: 'assistant', content: [{ type: 'tool_use', id: 't2', name: 'lookup', input: {} }] },
        'tool_use',
      ),
    );
    expect(reply).toEqual([
      { role: 'assistant', parts: [{ type: 'tool_call', id: 't2', name: 'lookup', arguments: {} }], finish_reason: 'tool_use' },
    ]);
  });
});
