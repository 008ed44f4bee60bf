// Long-running commands (mock-server, proxy) run until the user stops them.

/**
 * Resolves on the first SIGINT or SIGTERM; `dispose` removes the handlers. Kept installed until the
 * command has shut down: a second Ctrl-C while it closes is absorbed instead of killing the process
 * before it cleaned up (temporary stores, reports still being written).
 */
export function untilSignal(): { signalled: Promise<string>; dispose: () => void } {
  let dispose = () => {};
  const signalled = new Promise<string>((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => resolve(signal);
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    dispose = () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    };
  });
  return { signalled, dispose };
}
