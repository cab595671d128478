/**
 * The known names closest to a misspelled one, for "did you mean …"
 * messages. Names are compared case-insensitively with everything but
 * letters and digits left out, so `chat.postMessage` is `chat_postMessage`
 * and `GETFORECAST` is `getForecast`. Distance is Damerau-Levenshtein
 * (optimal string alignment: insertions, deletions, substitutions and swaps
 * of two neighbours each cost 1); a name qualifies within a third of the
 * wanted name's length (at least 1), or when one contains the other (an
 * agent that drops a prefix: `postMessage`).
 */

/** Most suggestions given. */
export const MAX_SUGGESTIONS = 3;

const normalize = (name: string) => name.toLowerCase().replace(/[^\p{L}\p{N}]/gu, "");

export function closestNames(wanted: string, names: Iterable<string>, max = MAX_SUGGESTIONS): string[] {
  const target = normalize(wanted);
  if (target === "") return [];
  const limit = Math.max(1, Math.floor(target.length / 3));
  const scored: { name: string; distance: number }[] = [];
  for (const name of names) {
    const candidate = normalize(name);
    if (candidate === "" || name === wanted) continue;
    const shorter = Math.min(candidate.length, target.length);
    const contains = shorter >= 3 && (candidate.includes(target) || target.includes(candidate));
    if (!contains && Math.abs(candidate.length - target.length) > limit) continue;
    const distance = contains ? 0.5 : editDistance(target, candidate, limit);
    if (distance <= limit) scored.push({ name, distance: candidate === target ? 0 : distance });
  }
  scored.sort((a, b) => a.distance - b.distance || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return scored.slice(0, max).map((entry) => entry.name);
}

/** Optimal string alignment distance, or `limit + 1` as soon as it must exceed `limit`. */
export function editDistance(a: string, b: string, limit = Number.POSITIVE_INFINITY): number {
  let previous2: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        value = Math.min(value, previous2[j - 2]! + 1);
      }
      current.push(value);
      best = Math.min(best, value);
    }
    if (best > limit) return limit + 1;
    previous2 = previous;
    previous = current;
  }
  return previous[b.length]!;
}
