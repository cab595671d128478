/**
 * Tool search for agents. The host's `query` filter is one case-insensitive
 * substring, so "weather forecast" would miss a tool named "Daily forecast
 * for a city". Agents type several words: search the whole phrase and each
 * word, then rank the union by how many words each tool contains (the whole
 * phrase counts extra; among equals, a tool whose id holds more of the words
 * comes first, so "forecast" finds `getForecast` before `listCities`).
 */
import type { ToolRecord } from "../contract/tools.js";
import type { HostAccess } from "./host-access.js";

const MAX_WORDS = 8;
/** Matches fetched per word before ranking. */
const CANDIDATES_PER_WORD = 200;

export async function searchTools(
  access: Pick<HostAccess, "listTools">,
  input: { query: string; serviceId?: string; limit: number },
): Promise<ToolRecord[]> {
  const phrase = input.query.trim();
  const words = [
    ...new Set(
      phrase
        .toLowerCase()
        .split(/[\s,;]+/u)
        .filter(Boolean),
    ),
  ].slice(0, MAX_WORDS);
  if (words.length === 0) {
    return access.listTools({ serviceId: input.serviceId, limit: input.limit });
  }
  const queries = words.length === 1 ? [phrase] : [phrase, ...words];
  const batches = await Promise.all(
    queries.map((query) => access.listTools({ query, serviceId: input.serviceId, limit: CANDIDATES_PER_WORD })),
  );
  const candidates = new Map<string, ToolRecord>();
  for (const tool of batches.flat()) {
    const key = `${tool.serviceId}.${tool.id}`;
    if (!candidates.has(key)) candidates.set(key, tool);
  }
  return rankTools([...candidates.values()], phrase, words).slice(0, input.limit);
}

/**
 * Most matching words first, then most words in the id; remaining ties keep
 * their order (Array.prototype.sort is stable).
 */
export function rankTools(tools: ToolRecord[], phrase: string, words: string[]): ToolRecord[] {
  const needle = phrase.toLowerCase();
  const score = (tool: ToolRecord) => {
    const haystack = `${tool.id} ${tool.name} ${tool.description}`.toLowerCase();
    const matched = words.filter((word) => haystack.includes(word)).length;
    return haystack.includes(needle) ? matched + words.length : matched;
  };
  const inId = (tool: ToolRecord) => words.filter((word) => tool.id.toLowerCase().includes(word)).length;
  return tools
    .map((tool) => ({ tool, score: score(tool), inId: inId(tool) }))
    .sort((a, b) => b.score - a.score || b.inId - a.inId)
    .map((entry) => entry.tool);
}
