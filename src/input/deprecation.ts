/*
 * Public names kept for one minor version after another name took their place: each still works,
 * and the first use in a process warns as Node's own deprecations do (a DeprecationWarning with a
 * code, which --no-deprecation silences and --throw-deprecation makes throw), naming what to use
 * instead. The next minor version removes them (CHANGELOG).
 */

const DEPRECATED = {
  freezePrefix: { code: 'FORKPOOL_DEP_FREEZE_PREFIX', use: 'engine.freeze(session), which does the same' },
  importSession: { code: 'FORKPOOL_DEP_IMPORT_SESSION', use: 'loadSession(path, { onImport }), whose onImport gets the import summary' },
  loadTasks: {
    code: 'FORKPOOL_DEP_LOAD_TASKS',
    use: 'streamTasks(path), which fanOut takes as it is (or collect it: for await (const task of await streamTasks(path)))',
  },
  'run.stop': { code: 'FORKPOOL_DEP_RUN_STOP', use: 'run.cancel(id), which now answers whether it cancelled the fork' },
  "provider { kind: 'local', url }": {
    code: 'FORKPOOL_DEP_LOCAL_URL',
    use: "{ kind: 'local', baseUrl }, which names the endpoint as every other provider does",
  },
} as const;

export type DeprecatedName = keyof typeof DEPRECATED;

const warned = new Set<DeprecatedName>();

/** Warns, the first time in this process, that `name` is deprecated and what replaces it. */
export function warnDeprecated(name: DeprecatedName): void {
  if (warned.has(name)) return;
  warned.add(name);
  const { code, use } = DEPRECATED[name];
  process.emitWarning(`${name} is deprecated and the next minor version removes it: use ${use}`, { type: 'DeprecationWarning', code });
}
