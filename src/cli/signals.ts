/**
 * SIGINT/SIGTERM stop a run: cancel what is in flight, keep what finished. A second signal
 * exits at once, for a user who does not want to wait.
 */
export function onStopSignals(stop: () => void): { dispose(): NodeJS.Signals | undefined } {
  let received: NodeJS.Signals | undefined;
  const handler = (signal: NodeJS.Signals): void => {
    if (received) process.exit(130);
    received = signal;
    stop();
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return {
    dispose() {
      process.off('SIGINT', handler);
      process.off('SIGTERM', handler);
      return received;
    },
  };
}
