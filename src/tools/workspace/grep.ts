import { readFile, stat } from 'node:fs/promises';
import { z } from 'zod';
import { defineTool, type Tool } from '../define.js';
import { compileGlob } from './glob.js';
import { compileLinear, type LinearRegex } from './linear-regex.js';
import { clipLine, looksBinary, type ResolvedLimits } from './limits.js';
import { MAX_PATH_CHARS, resolveInRoot } from './paths.js';
import { splitLines } from './read-file.js';
import { walkFiles, type WalkState, type WalkedFile } from './walk.js';

interface GrepMatch {
  path: string;
  /** 1-based, so it can be passed to read_file as offset. */
  line: number;
  text: string;
}

interface GrepResult {
  matches: GrepMatch[];
  /** True when the result cap was reached, the walk stopped at maxDepth, or files over maxFileBytes were skipped. */
  truncated: boolean;
}

const parameters = z.object({
  pattern: z
    .string()
    .min(1)
    .describe('Regular expression (RE2: JavaScript syntax without lookaround or backreferences), tested against each line.'),
  path: z.string().optional().describe('File or directory to search, relative to the workspace root (default: the root).'),
  glob: z
    .string()
    .max(MAX_PATH_CHARS)
    .optional()
    .describe('Only search files matching this glob; a glob without "/" is matched against the file name alone.'),
  ignoreCase: z.boolean().optional().describe('Case-insensitive match.'),
  maxResults: z.number().int().min(1).optional().describe('Stop after this many matches (capped by the workspace limit).'),
});

type GrepArgs = z.output<typeof parameters>;

export function grepTool(root: string, limits: ResolvedLimits): Tool<GrepArgs> {
  return defineTool({
    name: 'grep',
    description:
      'Search workspace text files for lines matching a regular expression (RE2 syntax, linear time). Binary files, node_modules and .git are skipped. Returns { matches: [{ path, line, text }], truncated }.',
    parameters,
    async execute(args, ctx): Promise<GrepResult> {
      const re = compileRegex(args.pattern, args.ignoreCase === true);
      const only = args.glob === undefined ? undefined : fileFilter(args.glob);
      const cap = Math.min(args.maxResults ?? limits.maxResults, limits.maxResults);
      const state: WalkState = { depthLimited: false };
      const matches: GrepMatch[] = [];
      let skippedBig = false;
      for await (const file of filesToSearch(root, args.path ?? '.', limits, ctx.signal, state)) {
        ctx.signal.throwIfAborted();
        if (only !== undefined && !only(file.rel)) continue;
        if ((await stat(file.abs)).size > limits.maxFileBytes) {
          skippedBig = true; // searching only the head would silently miss matches; say so instead
          continue;
        }
        const bytes = await readFile(file.abs);
        if (looksBinary(bytes)) continue;
        const lines = splitLines(bytes.toString('utf8'));
        for (let i = 0; i < lines.length; i++) {
          const line = lines[i] as string;
          if (!re.test(line)) continue;
          if (matches.length === cap) return { matches, truncated: true };
          matches.push({ path: file.rel, line: i + 1, text: clipLine(line, limits.maxLineChars).text });
        }
      }
      return { matches, truncated: skippedBig || state.depthLimited };
    },
  });
}

function compileRegex(pattern: string, ignoreCase: boolean): LinearRegex {
  try {
    return compileLinear(pattern, { ignoreCase });
  } catch (err) {
    throw new Error(
      `grep: pattern ${JSON.stringify(pattern)} is not a valid RE2 regular expression (JavaScript syntax without lookaround or backreferences): ${(err as Error).message}`,
    );
  }
}

function fileFilter(glob: string): (rel: string) => boolean {
  if (glob.includes('\0')) throw new Error('grep: glob is refused: it contains a NUL character');
  const re = compileGlob(glob);
  // Like ripgrep's --glob: "*.ts" means every .ts file, not only the top-level ones.
  return glob.includes('/') ? (rel) => re.test(rel) : (rel) => re.test(rel.slice(rel.lastIndexOf('/') + 1));
}

/** The single file named by `path`, or every file walked below it. */
async function* filesToSearch(
  root: string,
  requested: string,
  limits: ResolvedLimits,
  signal: AbortSignal,
  state: WalkState,
): AsyncGenerator<WalkedFile> {
  const target = await resolveInRoot(root, requested);
  const st = await stat(target.abs);
  if (st.isFile()) {
    yield { abs: target.abs, rel: target.rel };
    return;
  }
  if (!st.isDirectory()) throw new Error(`grep: ${JSON.stringify(requested)} is neither a file nor a directory`);
  yield* walkFiles({ root, start: target.abs, startRel: target.rel, maxDepth: limits.maxDepth, signal }, state);
}
