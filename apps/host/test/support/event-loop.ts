/**
 * Counts the event loop's turns (macrotasks) while `work` runs: work done on
 * the event loop in one go (one statement, a parse, a render) lets none
 * through; work that yields between slices, or runs in another thread, lets
 * many. `onTurn` is told each turn's number (to change something mid-work).
 */
export async function turnsDuring<T>(
  work: () => Promise<T>,
  onTurn: (turn: number) => void = () => {},
): Promise<{ result: T; turns: number }> {
  let turns = 0;
  let running = true;
  const turn = () => {
    if (!running) return;
    onTurn(++turns);
    setImmediate(turn);
  };
  setImmediate(turn);
  try {
    return { result: await work(), turns };
  } finally {
    running = false;
  }
}
