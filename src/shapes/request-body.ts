/**
 * A request body from the session's own fields, key for key in their order, with the fork's
 * conversation under `key` (the session's `format` is forkpool's and stays out): the parent's bytes
 * but for what the fork adds.
 */
export function bodyWith(fields: object, key: string, conversation: unknown): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(fields)) {
    if (name === 'format') continue;
    body[name] = name === key ? conversation : value;
  }
  return body;
}
