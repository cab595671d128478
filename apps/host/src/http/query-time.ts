/** A time from a list's query (`since`, `until`) as the host writes times, for comparing stored text with it. */
import { CyrnelError } from "../errors.js";

/** UTC with milliseconds (`toISOString`), so that a time given with an offset compares as the same instant. */
export function utc(time: string, name: string): string {
  const at = new Date(time);
  if (Number.isNaN(at.getTime())) throw new CyrnelError("bad_request", `"${name}" is not a date-time: "${time}"`);
  return at.toISOString();
}
