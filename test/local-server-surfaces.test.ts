// Internal: serveCommand (src/cli/serve.ts), `forkpool serve` run in-process: the CLI is its public face, and no entry point exports a command; everything else comes through forkpool/local-server.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { serveCommand } from '../src/cli/serve.js';
import { startLocalServer, startLocalServerThread } from '../src/local-server/index.js';
import { client, MODEL, padding } from './fixtures/local-server/client.js';

const fixture = (name: string): string => fileURLToPath(new URL(`./fixtures/local-server/${name}`, import.meta.url));

/** Runs a TS fixture in a child process; resolves with its exit code and stdout. `onLine` may act on output. */
function runChild(
  file: string,
  args: string[],
  onLine?: (line: string, kill: (signal: NodeJS.Signals) => void) => void,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', file, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const guard = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.stdout.on('data', (data: Buffer) => {
      const before = stdout;
      stdout += data.toString();
      const complete = stdout.slice(0, stdout.lastIndexOf('\n') + 1);
      for (const line of complete
        .slice(before.lastIndexOf('\n') + 1)
        .split('\n')
        .filter(Boolean))
        onLine?.(line, (s) => child.kill(s));
    });
    child.stderr.on('data', (data: Buffer) => (stderr += data.toString()));
    child.on('exit', (code, signal) => {
      clearTimeout(guard);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

describe('local server: metrics', () => {
  it('GET /metrics reports requests by route and status, tokens, cache and in-flight gauges', async () => {
    const server = await startLocalServer({ cache: { minTokens: 100 } });
    try {
      const ai = client(server.url);
      const contents = padding(800);
      const cold = await ai.models.generateContent({ model: MODEL, contents });
      const warm = await ai.models.generateContent({ model: MODEL, contents });
      await ai.caches.get({ name: 'cachedContents/missing' }).catch(() => undefined);
      const text = await (await fetch(`${server.url}/metrics`)).text();
      expect(text).toContain('# TYPE forkpool_local_requests_total counter');
      expect(text).toMatch(/^forkpool_local_requests_total\{route="generateContent",status="200"\} 2$/m);
      expect(text).toMatch(/^forkpool_local_requests_total\{route="cachedContents.get",status="404"\} 1$/m);
      const prompt = (cold.usageMetadata?.promptTokenCount ?? 0) + (warm.usageMetadata?.promptTokenCount ?? 0);
      expect(text).toContain(`forkpool_local_prompt_tokens_total ${prompt}`);
      expect(text).toContain(`forkpool_local_cached_tokens_total ${warm.usageMetadata?.cachedContentTokenCount ?? -1}`);
      expect(text).toMatch(/^forkpool_local_cache_entries [1-9]\d*$/m);
      expect(text).toMatch(/^forkpool_local_cache_evictions_total 0$/m);
      expect(text).toMatch(/^forkpool_local_in_flight_requests 1$/m);
      // The scrape itself is counted once it is answered.
      expect(server.metrics().requests.find((r) => r.route === 'metrics')?.count).toBe(1);
      expect(server.metrics().requestsTotal).toBe(4);
    } finally {
      await server.close();
    }
  });
});

describe('local server: in a worker thread', () => {
  it('serves the SDK from its own thread and closes', async () => {
    const thread = await startLocalServerThread({ cache: { minTokens: 100 } });
    try {
      expect(thread.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const ai = client(thread.url);
      const contents = padding(500);
      await ai.models.generateContent({ model: MODEL, contents });
      const warm = await ai.models.generateContent({ model: MODEL, contents });
      expect(warm.usageMetadata?.cachedContentTokenCount ?? 0).toBeGreaterThan(0);
    } finally {
      await thread.close();
    }
    await expect(fetch(`${thread.url}/metrics`)).rejects.toThrow();
  });

  it('leaves nothing that keeps the process alive after close', async () => {
    const run = await runChild(fixture('thread-exit.ts'), []);
    expect(run.stderr).toBe('');
    expect(run.stdout.trim()).toBe('from-thread');
    expect(run.signal).toBeNull();
    expect(run.code).toBe(0);
  });
});

describe('forkpool serve', () => {
  it('rejects unknown flags and bad values with exit code 2', async () => {
    const errors: string[] = [];
    const io = { out: () => undefined, err: (line: string) => errors.push(line) };
    expect(await serveCommand(['--bogus'], io)).toBe(2);
    expect(errors.join('\n')).toMatch(/bogus/);
    expect(await serveCommand(['--latency', 'warp'], io)).toBe(2);
    expect(await serveCommand(['--faults', '429=7'], io)).toBe(2);
    expect(await serveCommand(['--block-tokens', '0'], io)).toBe(2);
  });

  it('prints the URL and the export line, serves with the given options, stops when told', async () => {
    const lines: string[] = [];
    let stop: (reason: string) => void = () => undefined;
    const stopped = new Promise<string>((resolve) => (stop = resolve));
    const done = serveCommand(['--port', '0', '--min-cache-tokens', '100', '--block-tokens', '32', '--require-api-key', 'k1'], {
      out: (line) => lines.push(line),
      err: (line) => lines.push(line),
      stopped,
    });
    while (!lines.some((l) => l.startsWith('export '))) await new Promise((resolve) => setTimeout(resolve, 5));
    const exportLine = lines.find((l) => l.startsWith('export ')) ?? '';
    const url = exportLine.replace('export GOOGLE_GEMINI_BASE_URL=', '');
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(lines[0]).toContain(url);
    const ai = client(url, {}, 'k1');
    const contents = padding(300);
    await ai.models.generateContent({ model: MODEL, contents });
    const warm = await ai.models.generateContent({ model: MODEL, contents });
    const cached = warm.usageMetadata?.cachedContentTokenCount ?? 0;
    expect(cached).toBeGreaterThan(0);
    expect(cached % 32).toBe(0);
    stop('test');
    expect(await done).toBe(0);
  });

  it('stops cleanly on SIGTERM as a process', async () => {
    let url = '';
    const run = await runChild(fixture('serve-main.ts'), ['--port', '0'], (line, kill) => {
      if (line.startsWith('export GOOGLE_GEMINI_BASE_URL=')) {
        url = line.slice('export GOOGLE_GEMINI_BASE_URL='.length);
        void client(url)
          .models.generateContent({ model: MODEL, contents: 'REPLY up' })
          .then((res) => {
            if (res.text === 'up') kill('SIGTERM');
          });
      }
    });
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(run.code).toBe(0);
    expect(run.signal).toBeNull();
  });
});
