/**
 * What an agent's search text asks for, read once per search and handed to
 * the store, whichever database ranks it (both dialects take the same
 * {@link SearchQuery}; nothing here is SQL):
 *
 * - the words it typed (`terms`), each looked for as it is;
 * - words API documents use for the same action (`related`): agents say
 *   "read a file", "close an issue", "react with an emoji", documents say
 *   "get … content", "update an issue", "add a reaction". They are looked
 *   for too, but count for less than the typed words (`SEARCH_WEIGHTS.related`), since each carries its own rarity weight and would otherwise
 *   outrank what the agent typed;
 * - the HTTP methods its verb points to (`methods`): "delete a repository"
 *   wants `DELETE /repos/…`, "list commits" a `GET`. A tool whose endpoint
 *   has one of them scores higher (a factor, not a filter: Slack does
 *   everything with `POST`);
 * - the id or endpoint it may be (`exact`): an agent that pastes
 *   `chat.postMessage`, `POST /v1/refunds` or just `/v1/customers` means
 *   that tool, so it comes first whatever the other scores.
 *
 * Cheap on purpose (it runs on every search): a split, a few map look-ups.
 */
import type { ToolSearch } from "../domain/services/service-store.js";
import { indexText, searchTerms } from "./search-text.js";

/** What the store ranks by (the fields are described on {@link ToolSearch}). */
export type SearchQuery = Pick<ToolSearch, "terms" | "related" | "methods" | "exact">;

const READ = ["GET"];
const CREATE = ["POST", "PUT"];
const CHANGE = ["PATCH", "PUT", "POST"];
const REMOVE = ["DELETE"];

/**
 * Verbs agents use, each with the words API documents use for the same
 * action and the methods that do it. A verb that is its own API word
 * ("create", "list") has no related words but still points to its methods.
 * Words are as `searchWords` yields them (lower case, not stemmed).
 */
const VERBS: Record<string, { related?: readonly string[]; methods: readonly string[] }> = {
  get: { methods: READ },
  list: { methods: READ },
  read: { related: ["get", "list", "download"], methods: READ },
  fetch: { related: ["get", "list"], methods: READ },
  retrieve: { related: ["get"], methods: READ },
  show: { related: ["get", "list"], methods: READ },
  view: { related: ["get"], methods: READ },
  see: { related: ["get", "list"], methods: READ },
  check: { related: ["get"], methods: READ },
  download: { related: ["get"], methods: READ },
  search: { methods: READ },
  create: { methods: CREATE },
  add: { related: ["create"], methods: CREATE },
  make: { related: ["create"], methods: CREATE },
  new: { related: ["create"], methods: CREATE },
  open: { related: ["create"], methods: CREATE },
  publish: { related: ["create"], methods: CREATE },
  submit: { related: ["create"], methods: CREATE },
  upload: { methods: CREATE },
  post: { methods: CREATE },
  send: { methods: CREATE },
  place: { related: ["create"], methods: CREATE },
  invite: { methods: CREATE },
  react: { related: ["reaction", "create"], methods: CREATE },
  star: { methods: CREATE },
  fork: { methods: CREATE },
  update: { methods: CHANGE },
  edit: { related: ["update"], methods: CHANGE },
  change: { related: ["update"], methods: CHANGE },
  modify: { related: ["update"], methods: CHANGE },
  set: { related: ["update"], methods: CHANGE },
  rename: { related: ["update"], methods: CHANGE },
  close: { related: ["update", "state"], methods: CHANGE },
  reopen: { related: ["update", "state"], methods: CHANGE },
  lock: { methods: CHANGE },
  merge: { methods: CHANGE },
  archive: { methods: CHANGE },
  // "refunds" is the same stem: stemming finds it already.
  refund: { methods: CREATE },
  delete: { methods: REMOVE },
  remove: { related: ["delete"], methods: REMOVE },
  cancel: { related: ["delete"], methods: [...REMOVE, "POST"] },
  destroy: { related: ["delete"], methods: REMOVE },
  erase: { related: ["delete"], methods: REMOVE },
};

/**
 * Nouns agents use for what a document calls otherwise: Slack's channels are
 * `conversations`, a reaction is often asked for by its emoji.
 */
const NOUNS: Record<string, readonly string[]> = {
  channel: ["conversation"],
  channels: ["conversations"],
  emoji: ["reaction"],
  dm: ["conversation"],
};

const METHODS = new Set(["get", "post", "put", "patch", "delete", "head", "options"]);

/** An endpoint, with or without its method: `/v1/customers`, `GET /v1/customers`, `post /chat.postMessage`. */
const PATH = /^\s*(?:([a-z]+)\s+)?\/\S*\s*$/i;

/** The query of an agent's search text; undefined when it has no words to look for. */
export function searchQuery(text: string): SearchQuery | undefined {
  const terms = searchTerms(text);
  if (terms === undefined) return undefined;
  const words = indexText(text);
  const exact = [words];
  const path = PATH.exec(text);
  if (path !== null && (path[1] === undefined || !METHODS.has(path[1].toLowerCase()))) {
    // A path without its method is exactly any of the endpoints at that path.
    for (const method of METHODS) exact.push(`${method} ${words}`);
  }
  const typed = new Set(terms);
  const related = new Set<string>();
  const methods = new Set<string>();
  if (path === null) {
    // The first verb decides the methods ("list the tools to delete" is a read); every word may bring related words.
    let verbSeen = false;
    for (const term of terms) {
      const verb = VERBS[term];
      if (verb !== undefined && !verbSeen) {
        verbSeen = true;
        for (const method of verb.methods) methods.add(method);
      }
      for (const word of verb?.related ?? NOUNS[term] ?? []) if (!typed.has(word)) related.add(word);
    }
  }
  return { terms, related: [...related], methods: [...methods], exact };
}
