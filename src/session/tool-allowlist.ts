/**
 * A fork's tool allowlist (`fork_tools`, a task's `tools`): which entries are valid, and whether a
 * list allows a tool. The forms are Qwen Code's (PR #8066, "feat(agent): add fork tool execution
 * allowlist"): exact names, `mcp__<server>` (every tool of that MCP server), `mcp__*` (every MCP
 * tool, no built-in), and `mcp__<server>__<prefix>*` (a trailing tool-name prefix).
 */

const MCP_PREFIX = 'mcp__';
const ALL_MCP = 'mcp__*';

/** The reference's words for any other wildcard. */
const WILDCARD_RULE = 'wildcard entries must be "mcp__*" or a trailing MCP tool-prefix pattern such as "mcp__github__read_*"';

/**
 * The reference's validator (isValidForkToolWildcard), unchanged: an entry without `*` is valid
 * here; one with `*` must be `mcp__*` or `mcp__<server>__<prefix>*` with one trailing star and a
 * non-empty server.
 */
export function isValidToolWildcard(entry: string): boolean {
  if (!entry.includes('*')) return true;
  if (entry === ALL_MCP) return true;
  if (!entry.startsWith(MCP_PREFIX) || !entry.endsWith('*') || entry.slice(0, -1).includes('*')) return false;
  const patternBody = entry.slice(MCP_PREFIX.length, -1);
  return patternBody.lastIndexOf('__') > 0;
}

/**
 * Why one entry is refused, or undefined when it is valid: the same rules for fork_tools, a task's
 * tools and seedFork's allowedTools. The two wildcard rejections are in the reference's words;
 * "omit it" there names `field`, since omitting only the `*` entry would leave `[]`, which denies
 * every tool, the opposite of what `*` asked for.
 */
export function toolEntryRule(entry: unknown, field: string): string | undefined {
  if (typeof entry !== 'string' || entry === '') return 'must be a non-empty tool name';
  if (entry.trim() !== entry) return `${JSON.stringify(entry)} must not have surrounding whitespace`;
  if (entry === '*') return `does not accept "*"; omit ${field} for unrestricted execution`;
  return isValidToolWildcard(entry) ? undefined : `${JSON.stringify(entry)}: ${WILDCARD_RULE}`;
}

/** Whether an allowlist lets a fork execute the tool `name`; `[]` allows nothing. */
export function allowsTool(allowlist: readonly string[], name: string): boolean {
  return allowlist.some((entry) => entryAllows(entry, name));
}

/*
 * The reference matches MCP entries against its tool registry's raw server and tool names.
 * forkpool's tools have only names, so it matches by name: it has no registry of which server a
 * tool came from. One consequence: a server whose own name contains `__` (`mcp__a__b__t`, server
 * `a__b`) is also matched by a shorter server's entry (`mcp__a`, `mcp__a__*`).
 */
function entryAllows(entry: string, name: string): boolean {
  if (entry === name) return true;
  // A built-in tool is allowed by its exact name only.
  if (!name.startsWith(MCP_PREFIX)) return false;
  // `mcp__*` and `mcp__<server>__<prefix>*`; an entry the validator refuses (`*`) matches nothing.
  if (entry.includes('*')) return isValidToolWildcard(entry) && name.startsWith(entry.slice(0, -1));
  // `mcp__<server>` without a star: every tool of that server.
  return entry.startsWith(MCP_PREFIX) && name.startsWith(`${entry}__`);
}
