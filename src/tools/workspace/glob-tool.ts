import { z } from 'zod';
import { defineTool, type Tool } from '../define.js';
import { compileGlob } from './glob.js';
import type { ResolvedLimits } from './limits.js';
import { MAX_PATH_CHARS } from './paths.js';
import { walkFiles, type WalkState } from './walk.js';

interface GlobResult {
  matches: string[];
  /** True when maxResults was reached or the walk stopped at maxDepth. */
  truncated: boolean;
}

const parameters = z.object({
  pattern: z
    .string()
    .min(1)
    .max(MAX_PATH_CHARS)
    .describe('Glob matched against file paths relative to the workspace root: * ? ** {a,b} [abc]. Example: src/**/*.ts'),
});

export function globTool(root: string, limits: ResolvedLimits): Tool<z.output<typeof parameters>> {
  return defineTool({
    name: 'glob',
    description:
      'Find workspace files whose root-relative path matches a glob (`*` stays within one directory, `**/` spans any). node_modules and .git are skipped.',
    parameters,
    async execute(args, ctx): Promise<GlobResult> {
      if (args.pattern.includes('\0')) throw new Error('glob: pattern is refused: it contains a NUL character');
      const re = compileGlob(args.pattern);
      const state: WalkState = { depthLimited: false };
      const matches: string[] = [];
      const walk = { root, start: root, startRel: '.', maxDepth: limits.maxDepth, signal: ctx.signal };
      for await (const file of walkFiles(walk, state)) {
        if (!re.test(file.rel)) continue;
        if (matches.length === limits.maxResults) return { matches, truncated: true };
        matches.push(file.rel);
      }
      return { matches, truncated: state.depthLimited };
    },
  });
}
