/**
 * Exit codes of the client commands (documented in `cyrnel help`). `run`
 * maps the process's exit state the way shells do: timeout → 124 (like
 * timeout(1)), canceled → 130 (like Ctrl-C).
 */
export const EXIT = {
  ok: 0,
  /** `run`: the process failed. */
  failed: 1,
  /** Bad flags or arguments. */
  usage: 2,
  /** The host answered with an error (the message and code are printed). */
  apiError: 3,
  /** The host could not be reached. */
  unreachable: 4,
  /** `run`: the process timed out. */
  timeout: 124,
  /** `run`: the process was canceled. */
  canceled: 130,
} as const;
