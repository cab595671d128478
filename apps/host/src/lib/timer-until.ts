/** The longest delay Node's timers take; a longer one fires at once. */
const MAX_DELAY_MS = 2_147_483_647;

/**
 * Calls `fire` at `at` (ms since the epoch), however far ahead: a time past Node's ~24.8-day limit is waited for in
 * steps. The timer does not keep the process alive. Returns what cancels it.
 */
export function timerUntil(at: number, fire: () => void): () => void {
  let timer: NodeJS.Timeout;
  const arm = () => {
    timer = setTimeout(() => (Date.now() < at ? arm() : fire()), Math.min(Math.max(0, at - Date.now()), MAX_DELAY_MS));
    timer.unref();
  };
  arm();
  return () => clearTimeout(timer);
}
