import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { jsonLines, runCli, writeTasks } from './fixtures/cli/run-cli.js';
import { startServe } from './fixtures/cli/serve.js';

/*
 * Every provider preset and cache mode as users run them: the built CLI in its own process against
 * `forkpool serve` in another, through each provider's official SDK. Nothing in the CLI's process
 * keeps its event loop alive but the run itself, so a wait that nothing holds open (an unref'd
 * timer) ends the process early (exit 13, no output) here, where the in-process simulator hid it.
 */

const MARKER = 'MARKER-1F0C';
const KEY = 'sk-out-of-process-never-printed';
const SESSIONS = {
  gemini: 'examples/session.json',
  openai: 'examples/openai-session.json',
  anthropic: 'examples/anthropic-session.json',
} as const;
const KEY_ENV: Record<string, string> = {
  gemini: 'GEMINI_API_KEY',
  openai: 'OPENAI_API_KEY',
  deepseek: 'DEEPSEEK_API_KEY',
  dashscope: 'DASHSCOPE_API_KEY',
  'openai-compatible': 'OPENAI_API_KEY',
  anthropic: 'ANTHROPIC_API_KEY',
};

const tmp = mkdtempSync(join(tmpdir(), 'forkpool-out-of-process-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

// Three forks: two recall a marker only the parent's history holds, one works from the completed turns.
const TASKS = writeTasks(tmp, [
  { id: 'recall', directive: 'Quote the onboarding ticket from the conversation.\nRECALL MARKER-[0-9A-F]{4}' },
  { id: 'recall-completed', history: 'completed-turns', directive: 'Quote the ticket again.\nRECALL MARKER-[0-9A-F]{4}' },
  { id: 'plain', directive: 'Say that you are done.' },
]);

interface Case {
  name: string;
  shape: keyof typeof SESSIONS;
  /** `forkpool serve --usage`: the provider the server's Chat Completions routes simulate. */
  usage?: string;
  provider: string;
  /** The base URL from the server's root. */
  path: string;
  args: readonly string[];
}

const chat = (provider: string, usage: string): Case[] =>
  [
    ['implicit', []],
    ['explicit', ['--cache', 'explicit']],
    ['parent-warm', ['--warmup', 'parent']],
  ].map(([mode, args]) => ({ name: `${provider} ${mode}`, shape: 'openai', usage, provider, path: '/v1', args: args as string[] }));

const CASES: Case[] = [
  ...chat('openai', 'openai'),
  // DeepSeek's warm-up waits its default 3 s cache build: the wait that once let the process exit 13.
  ...chat('deepseek', 'deepseek'),
  ...chat('dashscope', 'dashscope'),
  { name: 'openai-compatible (vLLM-like)', shape: 'openai', usage: 'none', provider: 'openai-compatible', path: '/v1', args: [] },
  { name: 'anthropic 5m', shape: 'anthropic', provider: 'anthropic', path: '', args: ['--cache-ttl', '5m'] },
  { name: 'anthropic 1h', shape: 'anthropic', provider: 'anthropic', path: '', args: ['--cache-ttl', '1h'] },
  { name: 'gemini implicit', shape: 'gemini', provider: 'gemini', path: '', args: [] },
  { name: 'gemini explicit', shape: 'gemini', provider: 'gemini', path: '', args: ['--cache', 'explicit'] },
  { name: 'gemini parent-warm', shape: 'gemini', provider: 'gemini', path: '', args: ['--warmup', 'parent'] },
  { name: 'local, a running server', shape: 'gemini', provider: 'local', path: '', args: [] },
  { name: 'gemini with --cache-build-ms', shape: 'gemini', provider: 'gemini', path: '', args: ['--cache-build-ms', '400'] },
];

const keyEnv = (provider: string): NodeJS.ProcessEnv => {
  const name = KEY_ENV[provider];
  return name === undefined ? {} : { [name]: KEY };
};

describe.concurrent('forkpool run against forkpool serve in another process, every preset', () => {
  for (const c of CASES) {
    it(`${c.name}: every fork completes, recalls the parent's marker, and the process exits 0`, async () => {
      const server = await startServe(c.usage ? ['--usage', c.usage] : []);
      try {
        const out = join(tmp, `${c.name.replace(/\W+/g, '-')}.jsonl`);
        const run = await runCli(
          [
            'run',
            '--session',
            SESSIONS[c.shape],
            '--tasks',
            TASKS,
            '--provider',
            c.provider,
            '--base-url',
            `${server.url}${c.path}`,
            '--out',
            out,
            '--output-format',
            'json',
            ...c.args,
          ],
          { env: keyEnv(c.provider) },
        );
        expect(run.stderr).not.toContain(KEY);
        expect({ code: run.code, signal: run.signal }).toEqual({ code: 0, signal: null });
        const results = jsonLines(readFileSync(out, 'utf8'));
        expect(results.map((r) => [r.id, r.status]).sort()).toEqual([
          ['plain', 'completed'],
          ['recall', 'completed'],
          ['recall-completed', 'completed'],
        ]);
        expect(results.find((r) => r.id === 'recall')?.text).toContain(MARKER);
        const report = JSON.parse(run.stdout) as { forks: { completed: number }; modelCalls: number };
        expect(report.forks.completed).toBe(3);
        expect(report.modelCalls).toBeGreaterThanOrEqual(3);
      } finally {
        await server.stop();
      }
    });
  }
});

const PROMPT_CASES: { name: string; shape: keyof typeof SESSIONS; usage?: string; provider: string; path: string }[] = [
  { name: 'gemini', shape: 'gemini', provider: 'gemini', path: '' },
  { name: 'openai', shape: 'openai', usage: 'openai', provider: 'openai', path: '/v1' },
  // Always parent-warm: the forks wait DeepSeek's cache build from the start.
  { name: 'deepseek', shape: 'openai', usage: 'deepseek', provider: 'deepseek', path: '/v1' },
  { name: 'anthropic', shape: 'anthropic', provider: 'anthropic', path: '' },
  { name: 'local, a running server', shape: 'gemini', provider: 'local', path: '' },
];

describe.concurrent('forkpool prompt against forkpool serve in another process, each shape', () => {
  for (const c of PROMPT_CASES) {
    it(`${c.name}: the parent's fork recalls the marker and the loop ends with exit 0`, async () => {
      const server = await startServe(c.usage ? ['--usage', c.usage] : []);
      try {
        const run = await runCli(
          [
            'prompt',
            'FORK RECALL MARKER-[0-9A-F]{4}',
            '--session',
            SESSIONS[c.shape],
            '--provider',
            c.provider,
            '--base-url',
            `${server.url}${c.path}`,
            '--output-format',
            'stream-json',
          ],
          { env: keyEnv(c.provider) },
        );
        expect(run.stderr).not.toContain(KEY);
        expect({ code: run.code, signal: run.signal }).toEqual({ code: 0, signal: null });
        const lines = jsonLines(run.stdout);
        const notifications = lines.filter((l) => l.type === 'system' && l.subtype === 'task_notification');
        expect(notifications.map((n) => (n.data as { status: string }).status)).toEqual(['completed']);
        const result = lines.at(-1) as { type: string; is_error: boolean; result: string };
        expect(result.type).toBe('result');
        expect(result.is_error).toBe(false);
        expect(result.result).toContain(MARKER);
      } finally {
        await server.stop();
      }
    });
  }
});
