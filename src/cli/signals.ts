import { exitCodeOfSignal } from './exit-codes.js';

/**
 * SIGINT/SIGTERM stop a run: cancel what is in flight, keep what finished. A second signal
 * exits at once, for a user who does not want to wait. The handlers stay until dispose(), so a
 * signal during the final report is still handled rather than killing the process mid-write.
 */
export function onStopSignals(stop: () => void): { received(): NodeJS.Signals | undefined; dispose(): void } {
  let received: NodeJS.Signals | undefined;
  const handler = (signal: NodeJS.Signals): void => {
    if (received) process.exit(exitCodeOfSignal(signal));
    received = signal;
    stop();
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return {
    received: () => received,
    dispose() {
      process.off('SIGINT', handler);
      process.off('SIGTERM', handler);
    },
  };
}
