/**
 * Bounds a call into module code. The call itself cannot be cancelled (it
 * may keep running in the background); the caller stops waiting for it.
 */
export class TimeoutError extends Error {
  constructor(
    readonly what: string,
    readonly ms: number,
  ) {
    super(`${what} did not finish within ${ms} ms`);
    this.name = "TimeoutError";
  }
}

export async function withTimeout<T>(what: string, ms: number, call: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      Promise.resolve().then(call),
      new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => reject(new TimeoutError(what, ms)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
