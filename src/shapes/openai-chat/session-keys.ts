// Apart from schema.ts, which builds on zod: converting a session reads these in a fork's thread too, which never loads zod.

/** Every field an openai-chat session takes (the importers keep these of a request body). */
export const OPENAI_CHAT_SESSION_KEYS: readonly string[] = [
  'format',
  'model',
  'messages',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'temperature',
  'top_p',
  'max_tokens',
  'max_completion_tokens',
  'reasoning_effort',
  'response_format',
  'seed',
  'stop',
  'prompt_cache_options',
  'prompt_cache_retention',
];
