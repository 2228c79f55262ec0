import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/* Starts test/support/replay-server.mjs in a process of its own (its framing is documented there). */

const SCRIPT = fileURLToPath(new URL('./replay-server.mjs', import.meta.url));

export interface ReplayServer {
  /** http://127.0.0.1:PORT */
  url: string;
  /** The base URL that replays a recording (or a sequence: files joined by `+`) of test/fixtures/recorded/<provider>/. */
  base(provider: string, ...files: string[]): string;
  /** Every request the server received so far. */
  requests(): Promise<{ path: string; body: string }[]>;
  close(): Promise<void>;
}

export async function startReplayServer(): Promise<ReplayServer> {
  const child = spawn(process.execPath, [SCRIPT], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout });
  const url = await new Promise<string>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the replay server exited (${String(code)}) before it listened`)));
    lines.once('line', (line) => resolve((JSON.parse(line) as { url: string }).url));
  });
  return {
    url,
    base: (provider, ...files) => `${url}/replay/${provider}/${files.map(encodeURIComponent).join('+')}`,
    async requests() {
      const response = await fetch(`${url}/requests`);
      return (await response.json()) as { path: string; body: string }[];
    },
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.stdin.end();
      }),
  };
}
