/**
 * Lets the event loop run (other requests, `/health`) in the middle of a
 * long synchronous job done in slices: a macrotask, not a microtask, so I/O
 * callbacks get their turn.
 */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
