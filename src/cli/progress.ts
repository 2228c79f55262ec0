import type { FanOutRun } from '../engine/run.js';

export interface Progress {
  /** Wipes the line, so that other output starts on a clean one (the next tick draws it again). */
  clear(): void;
  stop(): void;
}

/** A live status line on a TTY; nothing at all when stderr is not one. */
export function startProgress(run: FanOutRun, stream: NodeJS.WriteStream): Progress {
  if (!stream.isTTY) return { clear: () => undefined, stop: () => undefined };
  const started = performance.now();
  const draw = (): void => {
    const r = run.report();
    const done = r.forks.completed + r.forks.failed + r.forks.cancelled;
    const elapsed = (performance.now() - started) / 1000;
    const rate = elapsed > 0 ? done / elapsed : 0;
    // Tasks still streaming in: the total so far is a lower bound, and there is no ETA.
    const total = r.forks.totalKnown ? `${r.forks.total}` : `${r.forks.total}+`;
    const eta = rate > 0 && r.forks.totalKnown ? `${Math.ceil((r.forks.total - done) / rate)}s` : '—';
    const line = `done ${done}/${total} · running ${r.forks.running} · queued ${r.forks.queued} · failed ${r.forks.failed} · ${rate.toFixed(1)} forks/s · hit ${r.hitRate === null ? 'unknown' : `${(r.hitRate * 100).toFixed(0)}%`} · ETA ${eta}`;
    stream.write(`\r\x1b[2K${line}`);
  };
  const timer = setInterval(draw, 250);
  timer.unref();
  return {
    clear: () => stream.write('\r\x1b[2K'),
    stop: () => {
      clearInterval(timer);
      stream.write('\r\x1b[2K');
    },
  };
}
