import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Tool } from '../tools/define.js';
import { loadToolsModule } from '../tools/load-module.js';
import { workspaceTools } from '../tools/workspace/index.js';
import { UsageError } from './usage-error.js';

/** The tools a CLI run offers: workspace tools for --workspace, user tools from --tools. */
export async function toolsFromFlags(workspace: string | undefined, module: string | undefined): Promise<Tool[]> {
  const tools: Tool[] = [];
  if (workspace !== undefined) {
    const root = resolve(workspace);
    const info = await stat(root).catch(() => undefined);
    if (!info?.isDirectory()) throw new UsageError(`--workspace: ${workspace} is not a directory`);
    tools.push(...workspaceTools(root));
  }
  if (module !== undefined) {
    try {
      tools.push(...(await loadToolsModule(resolve(module))));
    } catch (err) {
      throw new UsageError(`--tools: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  const seen = new Set<string>();
  for (const t of tools) {
    if (seen.has(t.name)) throw new UsageError(`--tools: tool ${t.name} is defined twice (a module tool clashes with a workspace tool)`);
    seen.add(t.name);
  }
  return tools;
}
