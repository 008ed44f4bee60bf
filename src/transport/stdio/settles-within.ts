// The wait both stdio client connections (a child process, a server on pipes) make when closing:
// has the server exited within a grace period?

/** Resolves true when `promise` settles within `ms`, false when the time runs out first. */
export function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    const settled = () => {
      clearTimeout(timer);
      resolve(true);
    };
    promise.then(settled, settled);
  });
}
