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
  inputSchema?: unknown;
};

/**
 * The function names a session's `tools` declare to the model: Gemini's functionDeclarations, Chat
 * Completions' function tools, Anthropic's tools (a name and an input_schema), the AI SDK's tools
 * (an object keyed by name), or the AI SDK dialect's entries of them (a name and an inputSchema).
 */
export function declaredToolNames(tools: readonly unknown[] | Readonly<Record<string, unknown>> | undefined): Set<string> {
  if (tools !== undefined && !Array.isArray(tools)) return new Set(Object.keys(tools));
  const names = new Set<string>();
  for (const tool of (tools ?? []) as readonly DeclaredTool[]) {
    for (const decl of tool.functionDeclarations ?? []) if (typeof decl.name === 'string') names.add(decl.name);
    if (tool.type === 'function' && typeof tool.function?.name === 'string') names.add(tool.function.name);
    // The Responses API's function tools carry the name at the top.
    if (tool.type === 'function' && typeof tool.name === 'string') names.add(tool.name);
    if (typeof tool.name === 'string' && (tool.input_schema !== undefined || tool.inputSchema !== undefined)) names.add(tool.name);
  }
  return names;
}
