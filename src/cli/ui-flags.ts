import type { FlagTable } from './flags.js';
import { portOf } from './parse-flags.js';
import { UsageError } from './usage-error.js';

/** `--ui [--ui-port N]`, for `run` and `prompt`. */
export const UI_FLAGS = {
  ui: {
    type: 'boolean',
    group: 'Live page',
    help: 'serve a live page of the run on 127.0.0.1 while it lasts (forks, timeline,\ncache, stop buttons); its URL, with a token, is printed on stderr',
  },
  'ui-port': { type: 'string', arg: 'N', group: 'Live page', help: "the live page's port (default: a free one)" },
} as const satisfies FlagTable;

/** The live page's port when --ui is given (0: a free one), undefined without --ui. */
export function uiPortOf(command: string, values: { ui?: boolean | undefined; 'ui-port'?: string | undefined }): number | undefined {
  const port = portOf('ui-port', values['ui-port']);
  if (values.ui !== true) {
    if (port !== undefined) throw new UsageError(`${command}: --ui-port needs --ui`);
    return undefined;
  }
  return port ?? 0;
}
