/**
 * A process's results sized for an LLM, and the pages to read the rest.
 *
 * A program can print a megabyte; an agent reading it pays for every
 * character, and a client may refuse the answer altogether. So the texts of
 * a run (stdout, stderr, the output's JSON and the error) are shown within
 * one limit in total: a text that fits its share is shown whole, a longer
 * one keeps its head and its tail (where programs usually say what they are
 * doing, and how it ended) around a marker naming the offset to read on
 * from. `sliceText` serves those pages.
 *
 * The limit counts characters as the agent receives them: inside a JSON
 * string, where a quote or a newline takes two and a control character six
 * (a cut output is such a string, and a megabyte of `"` would otherwise be
 * twice its size). Offsets and lengths of the texts themselves are UTF-16
 * code units, as JavaScript's `length`; no cut or page splits a surrogate
 * pair.
 */
import type { ProcessText } from "../../contract/processes.js";

export type ResultTexts = Record<ProcessText, string>;

export interface TextCut {
  stream: ProcessText;
  totalChars: number;
  /** Characters shown from the start; reading on from this offset gives the rest. */
  headChars: number;
  /** Characters shown from the end. */
  tailChars: number;
}

/** The order texts are measured in; only ties between equal lengths depend on it. */
const TEXTS: readonly ProcessText[] = ["error", "output", "stdout", "stderr"];

const numberFormat = new Intl.NumberFormat("en-US");

const isHighSurrogate = (text: string, index: number) => /[\uD800-\uDBFF]/.test(text[index] ?? "");
const isLowSurrogate = (text: string, index: number) => /[\uDC00-\uDFFF]/.test(text[index] ?? "");

/** What replaces the middle of a cut text: how much is left out and the call that reads on. */
export function cutMarker(processId: number, stream: ProcessText, offset: number, hiddenChars: number): string {
  return (
    `\n[… ${numberFormat.format(hiddenChars)} characters cut; read on with get_process ` +
    `{"id":${processId},"stream":"${stream}","offset":${offset}} ` +
    `(HTTP: GET /processes/${processId}/text?stream=${stream}&offset=${offset}) …]\n`
  );
}

/** How many characters `text` takes inside a JSON string. */
export const jsonChars = (text: string) => JSON.stringify(text).length - 2;

/** JSON characters of the code point at `index` (a surrogate pair counts as one, of two units). */
function unitAt(text: string, index: number): { units: number; chars: number } {
  const code = text.charCodeAt(index);
  if (code >= 0xd800 && code <= 0xdbff && isLowSurrogate(text, index + 1)) return { units: 2, chars: 2 };
  return { units: 1, chars: jsonChars(text[index]!) };
}

/** How many units from the start of `text` take at most `budget` JSON characters. */
function headUnits(text: string, budget: number): number {
  let index = 0;
  for (let used = 0; index < text.length; ) {
    const { units, chars } = unitAt(text, index);
    if (used + chars > budget) break;
    used += chars;
    index += units;
  }
  return index;
}

/** Where the end of `text` that takes at most `budget` JSON characters starts (never before `from`). */
function tailStart(text: string, budget: number, from: number): number {
  let index = text.length;
  for (let used = 0; index > from; ) {
    const pair = index - 2 >= from && isLowSurrogate(text, index - 1) && isHighSurrogate(text, index - 2);
    const start = pair ? index - 2 : index - 1;
    const chars = pair ? 2 : jsonChars(text[start]!);
    if (used + chars > budget) break;
    used += chars;
    index = start;
  }
  return index;
}

/**
 * The texts within `limit` JSON characters in total, markers included (as
 * long as a cut text's share can hold its marker, which a limit of 1,000
 * or more guarantees). Texts that fit a fair share are kept whole; the
 * longer ones split what is left equally, each keeping its head and tail.
 */
export function boundTexts(
  processId: number,
  texts: ResultTexts,
  limit: number,
): { texts: ResultTexts; cuts: TextCut[] } {
  const sizes = new Map(TEXTS.map((stream) => [stream, jsonChars(texts[stream])]));
  const size = (stream: ProcessText) => sizes.get(stream) ?? 0;
  if (TEXTS.reduce((sum, stream) => sum + size(stream), 0) <= limit) return { texts, cuts: [] };

  // Water-filling: smallest first, each takes its size or an equal share of what is left.
  const budgets = new Map<ProcessText, number>();
  let remaining = limit;
  const bySize = [...TEXTS].sort((a, b) => size(a) - size(b));
  bySize.forEach((stream, index) => {
    const budget = Math.min(size(stream), Math.floor(remaining / (bySize.length - index)));
    budgets.set(stream, budget);
    remaining -= budget;
  });

  const bounded = { ...texts };
  const cuts: TextCut[] = [];
  for (const stream of TEXTS) {
    const text = texts[stream];
    const budget = budgets.get(stream) ?? 0;
    if (size(stream) <= budget) continue;
    // The marker with the largest numbers it can hold is at least as long as the real one.
    const room = Math.max(0, budget - jsonChars(cutMarker(processId, stream, text.length, text.length)));
    const head = headUnits(text, Math.ceil(room / 2));
    const tail = tailStart(text, room - jsonChars(text.slice(0, head)), head);
    bounded[stream] = text.slice(0, head) + cutMarker(processId, stream, head, tail - head) + text.slice(tail);
    cuts.push({ stream, totalChars: text.length, headChars: head, tailChars: text.length - tail });
  }
  return { texts: bounded, cuts };
}

export interface TextPage {
  /** Where the page starts: the offset asked for, or one before it if that was inside a surrogate pair. */
  offset: number;
  text: string;
  /** Where the next page starts; `null` at the end. */
  nextOffset: number | null;
}

/**
 * The part of `text` from `offset` (which must be ≤ `text.length`) that takes at most `limit` characters inside a
 * JSON string, as the limit of a whole answer counts them (a page of quotes is half as long as one of letters);
 * at least one character, so that paging always moves on.
 */
export function sliceText(text: string, offset: number, limit: number): TextPage {
  const start = offset > 0 && isLowSurrogate(text, offset) && isHighSurrogate(text, offset - 1) ? offset - 1 : offset;
  // Walks at most `limit` characters: a page costs what it holds, not the whole text.
  const window = text.slice(start, start + limit + 1);
  let end = start + headUnits(window, limit);
  if (end === start && start < text.length) end = start + unitAt(text, start).units;
  return { offset: start, text: text.slice(start, end), nextOffset: end < text.length ? end : null };
}
