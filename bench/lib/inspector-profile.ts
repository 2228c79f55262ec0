/** A CPU profile of this thread for a window of time, through node:inspector (no restart, no flags). */
import { Session } from 'node:inspector';
import { writeFileSync } from 'node:fs';

export interface WindowProfiler {
  stop(file: string): Promise<void>;
}

export async function startWindowProfile(): Promise<WindowProfiler> {
  const session = new Session();
  session.connect();
  const post = (method: string, params?: object): Promise<unknown> =>
    new Promise((resolve, reject) => session.post(method, params ?? {}, (err, result) => (err ? reject(err) : resolve(result))));
  await post('Profiler.enable');
  await post('Profiler.setSamplingInterval', { interval: 200 });
  await post('Profiler.start');
  return {
    async stop(file) {
      const { profile } = (await post('Profiler.stop')) as { profile: unknown };
      writeFileSync(file, JSON.stringify(profile));
      session.disconnect();
    },
  };
}
