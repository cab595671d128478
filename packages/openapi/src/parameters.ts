import type { ParameterLocation } from "./operations.js";

/**
 * Input property names for an operation's parameters. Parameters are keyed
 * by their `name`, with two exceptions:
 *
 * - The same name in several locations: the first location in the order
 *   path, query, header, cookie keeps the plain name; the others become
 *   `<in>_<name>` (`id` in path and query → `id` and `query_id`).
 * - `body` is the request body's property whenever the operation has a
 *   body, so a parameter named `body` then becomes `<in>_body`.
 *
 * A renamed key that is still taken (a parameter literally named
 * `query_id`, say) gets `_2`, `_3`, … Plain names are claimed before
 * renamed ones, so a parameter never loses its own name to a rename.
 */

export const BODY_KEY = "body";

const PRIORITY: Record<ParameterLocation, number> = { path: 0, query: 1, header: 2, cookie: 3 };

export function parameterKeys(
  parameters: readonly { name: string; in: ParameterLocation }[],
  hasBody: boolean,
): string[] {
  const owner = new Map<string, number>();
  parameters.forEach((parameter, index) => {
    const current = owner.get(parameter.name);
    if (current === undefined || PRIORITY[parameter.in] < PRIORITY[parameters[current]!.in])
      owner.set(parameter.name, index);
  });
  const keys: (string | undefined)[] = parameters.map(() => undefined);
  const taken = new Set<string>(hasBody ? [BODY_KEY] : []);
  parameters.forEach((parameter, index) => {
    if (owner.get(parameter.name) === index && !taken.has(parameter.name)) {
      keys[index] = parameter.name;
      taken.add(parameter.name);
    }
  });
  const renamed = parameters
    .map((parameter, index) => ({ parameter, index }))
    .filter(({ index }) => keys[index] === undefined)
    .sort((a, b) => PRIORITY[a.parameter.in] - PRIORITY[b.parameter.in] || a.index - b.index);
  for (const { parameter, index } of renamed) {
    const base = `${parameter.in}_${parameter.name}`;
    let key = base;
    for (let n = 2; taken.has(key); n++) key = `${base}_${n}`;
    keys[index] = key;
    taken.add(key);
  }
  return keys as string[];
}
