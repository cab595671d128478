/**
 * Counts the event loop's turns (macrotasks) while `work` runs: work done on
 * the calling thread in one go lets none through; work that yields, or runs
 * in another thread, lets many.
 */
export async function turnsDuring<T>(work: () => Promise<T>): Promise<{ result: T; turns: number }> {
  let turns = 0;
  let running = true;
  const turn = () => {
    if (!running) return;
    turns++;
    setImmediate(turn);
  };
  setImmediate(turn);
  try {
    return { result: await work(), turns };
  } finally {
    running = false;
  }
}
