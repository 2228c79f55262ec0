/*
 * The function names a session's tools declare, in whichever shape they are written: the shapes' own
 * readers' business, so that the tool host knows none of them.
 */

type DeclaredTool = {
  functionDeclarations?: readonly { name?: unknown }[];
  type?: unknown;
  function?: { name?: unknown };
  name?: unknown;
  input_schema?: unknown;
};

/**
 * The function names a `tools` array declares to the model: Gemini's functionDeclarations, Chat
 * Completions' function tools, or Anthropic's tools (a name and an input_schema).
 */
export function declaredToolNames(tools: readonly unknown[] | undefined): Set<string> {
  const names = new Set<string>();
  for (const tool of (tools ?? []) as readonly DeclaredTool[]) {
    for (const decl of tool.functionDeclarations ?? []) if (typeof decl.name === 'string') names.add(decl.name);
    if (tool.type === 'function' && typeof tool.function?.name === 'string') names.add(tool.function.name);
    if (typeof tool.name === 'string' && tool.input_schema !== undefined) names.add(tool.name);
  }
  return names;
}
