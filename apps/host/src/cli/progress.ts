/**
 * A spinner with elapsed seconds on stderr while a request is slow (e.g.
 * installing a large definition). Only on a terminal: in pipes and logs it
 * would be noise.
 */
const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

export interface Progress {
  stop(): void;
}

export function startProgress(label: string, stream: NodeJS.WriteStream = process.stderr): Progress {
  if (!stream.isTTY) return { stop() {} };
  const started = Date.now();
  let frame = 0;
  const draw = () => {
    const seconds = Math.floor((Date.now() - started) / 1000);
    stream.write(`\r\x1b[2K${FRAMES[frame++ % FRAMES.length]} ${label} ${seconds}s`);
  };
  draw();
  const timer = setInterval(draw, 100);
  return {
    stop() {
      clearInterval(timer);
      stream.write("\r\x1b[2K");
    },
  };
}

/** Runs `work` with a spinner that is cleared however it ends. */
export async function withProgress<T>(label: string, enabled: boolean, work: () => Promise<T>): Promise<T> {
  const progress = enabled ? startProgress(label) : { stop() {} };
  try {
    return await work();
  } finally {
    progress.stop();
  }
}
