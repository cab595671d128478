/**
 * HTTP client for a host, used by the CLI commands and by the MCP tools
 * (`cyrnel mcp` over the network, `/mcp` inside the host through an
 * injected `fetch` that calls the app without a socket). Responses are typed
 * with the API's own shapes (`contract/`). Error bodies (`{error, code,
 * details?}`) become an ApiError carrying the same fields; a host that
 * cannot be reached becomes code `unreachable` (status 0).
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { Page } from "../contract/common.js";
import type { ApprovalSummary } from "../contract/governance.js";
import type { ProcessEvent, ProcessRecord, ProcessReport, ProcessResult } from "../contract/processes.js";

export class ApiError extends Error {
  constructor(
    /** HTTP status, or 0 when the host could not be reached. */
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

export type Query = Record<string, string | number | boolean | undefined>;

/** What following a process hands on while it runs. */
export interface FollowOptions {
  signal?: AbortSignal;
  onText?: (stream: "stdout" | "stderr", text: string) => void;
  /** An approval the process waits for: when it is created (or pending as the client comes) and when decided. */
  onApproval?: (approval: ApprovalSummary) => void;
}

export interface RequestOptions {
  body?: unknown;
  query?: Query;
  signal?: AbortSignal;
}

/** `.` or `..`, dots percent-encoded or not (WHATWG URL parsing treats `%2e` as a dot). */
const DOT_SEGMENT = /^(?:\.|%2e){1,2}$/i;

/** Longest pause between two polls of a running process. */
const MAX_POLL_MS = 1_000;

export interface ApiOptions {
  /** What sends the requests; the global `fetch` by default. */
  fetch?: (request: Request) => Promise<Response>;
}

export class CyrnelApi {
  readonly url: string;
  private readonly fetch: (request: Request) => Promise<Response>;

  constructor(
    url: string,
    private readonly apiKey: string | null,
    options: ApiOptions = {},
  ) {
    this.url = url.replace(/\/+$/, "");
    this.fetch = options.fetch ?? ((request) => fetch(request));
  }

  async json<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const response = await this.send(method, path, options);
    if (response.status === 204) return undefined as T;
    return (await response.json()) as T;
  }

  async text(method: string, path: string, options: RequestOptions = {}): Promise<string> {
    return (await this.send(method, path, options)).text();
  }

  /** Every item of a list endpoint, following `nextCursor`. */
  async listAll<T>(path: string, query: Query = {}): Promise<T[]> {
    const items: T[] = [];
    let cursor: string | null = null;
    do {
      const page: Page<T> = await this.json<Page<T>>("GET", path, {
        query: { ...query, limit: 1000, cursor: cursor ?? undefined },
      });
      items.push(...page.items);
      cursor = page.nextCursor;
    } while (cursor);
    return items;
  }

  /**
   * Creates a process and waits until it is idle, then reads its results.
   * It does not use `block: true`, so a long run is not cut by the HTTP
   * client's response timeout and the caller learns the process id at once
   * (`onCreated`, e.g. to kill it on Ctrl-C). It follows
   * `GET /processes/:id/events`, which ends the moment the process does, and
   * hands stdout and stderr to `onText` as they are written, and approvals
   * the process waits for (created and decided) to `onApproval`; if that
   * stream breaks (or the process has as many followers as it takes) it
   * polls. An aborted `signal` stops the waiting (not the process) and
   * answers the record as it is.
   */
  async runProcess(
    input: { code: string; ref?: string; timeoutMs?: number | null; typecheck?: boolean },
    options: FollowOptions & { onCreated?: (record: ProcessRecord) => void } = {},
  ): Promise<ProcessReport> {
    const created = await this.json<ProcessRecord>("POST", "/processes", { body: input });
    options.onCreated?.(created);
    const ended = await this.waitForProcess(created.id, options);
    return ended.state === "idle" && !("stdout" in ended) ? this.withResults(ended) : ended;
  }

  /**
   * Waits until a process is idle, following its events (stdout and stderr
   * go to `onText` as they are written) and polling if that stream breaks.
   * Answers the idle process with its results when the events carried them,
   * else its record; when `signal` aborts, the record as it is then.
   */
  async waitForProcess(id: number, options: FollowOptions = {}): Promise<ProcessReport> {
    const ended = await this.follow(id, options).catch(() => null);
    return ended ?? this.waitIdle(id, options.signal);
  }

  /** Reads a process's NDJSON events; the end event's process, or null if the stream stopped before it. */
  private async follow(id: number, { signal, ...handlers }: FollowOptions): Promise<ProcessResult | null> {
    const response = await this.send("GET", `/processes/${id}/events`, { signal });
    if (!response.body) return null;
    // Cancelled here, not only through the request's signal: a Request made for the in-process app (`/mcp`)
    // passes an abort on through a weak reference, which is gone once the app no longer holds the Request.
    const reader = response.body.getReader();
    const cancel = () => void reader.cancel().catch(() => undefined);
    if (signal?.aborted) cancel();
    signal?.addEventListener("abort", cancel, { once: true });
    try {
      return await this.readEvents(reader, handlers);
    } finally {
      signal?.removeEventListener("abort", cancel);
      // Done reading (the end event came, or the wait stopped): let the stream and its follower slot go.
      cancel();
    }
  }

  private async readEvents(
    reader: ReadableStreamDefaultReader<Uint8Array>,
    { onText, onApproval }: Omit<FollowOptions, "signal">,
  ): Promise<ProcessResult | null> {
    const decoder = new TextDecoder();
    let pending = "";
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      pending += decoder.decode(chunk.value, { stream: true });
      for (let newline = pending.indexOf("\n"); newline >= 0; newline = pending.indexOf("\n")) {
        const line = pending.slice(0, newline);
        pending = pending.slice(newline + 1);
        if (line === "") continue;
        // Checked, not trusted: a newer host may send kinds of events this client does not know.
        const event = JSON.parse(line) as ProcessEvent;
        if (event.type === "end") return event.process;
        if (event.type === "stdout" || event.type === "stderr") onText?.(event.type, event.text);
        if (event.type === "approval") onApproval?.(event);
      }
    }
    return null;
  }

  private async waitIdle(id: number, signal?: AbortSignal): Promise<ProcessRecord> {
    let pause = 20;
    for (;;) {
      const record = await this.json<ProcessRecord>("GET", `/processes/${id}`);
      if (record.state === "idle" || signal?.aborted) return record;
      await sleep(pause, undefined, { signal }).catch(() => undefined);
      pause = Math.min(Math.round(pause * 1.5), MAX_POLL_MS);
    }
  }

  /** The results of an idle process: its events are its stored texts and then its end, with every result, at once. */
  private async withResults(record: ProcessRecord): Promise<ProcessResult> {
    const ended = await this.follow(record.id, {});
    if (!ended) throw new ApiError(0, "unreachable", `the results of process ${record.id} could not be read`);
    return ended;
  }

  private async send(method: string, path: string, options: RequestOptions): Promise<Response> {
    // Ids are identifiers, never `.` or `..`; URL parsing would resolve such a segment to another route.
    const segments = path.split("?")[0]!.split("/");
    if (segments.some((segment) => DOT_SEGMENT.test(segment))) {
      throw new ApiError(400, "bad_request", `${method} ${path}: an id cannot be the dot segment "." or ".."`);
    }
    const url = new URL(this.url + path);
    for (const [name, value] of Object.entries(options.query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    const headers: Record<string, string> = { accept: "application/json, text/plain, text/markdown" };
    if (this.apiKey) headers.authorization = `Bearer ${this.apiKey}`;
    if (options.body !== undefined) headers["content-type"] = "application/json";
    let response: Response;
    try {
      response = await this.fetch(
        new Request(url, {
          method,
          headers,
          body: options.body === undefined ? undefined : JSON.stringify(options.body),
          signal: options.signal,
        }),
      );
    } catch (error) {
      if (options.signal?.aborted) throw error;
      throw new ApiError(0, "unreachable", `cannot reach the cyrnel host at ${this.url}: ${causeOf(error)}`);
    }
    if (response.ok) return response;
    throw await errorOf(response);
  }
}

async function errorOf(response: Response): Promise<ApiError> {
  const text = await response.text();
  try {
    const body = JSON.parse(text) as { error?: unknown; code?: unknown; details?: unknown };
    if (typeof body.error === "string" && typeof body.code === "string") {
      return new ApiError(response.status, body.code, body.error, body.details);
    }
  } catch {
    // Not one of the host's error bodies (e.g. a proxy's page): report the status and the start of the text.
  }
  return new ApiError(response.status, `http_${response.status}`, text.trim().slice(0, 200) || response.statusText);
}

function causeOf(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  if (cause instanceof Error) {
    // Connecting to a name with several addresses fails with an AggregateError whose message is empty.
    return cause.message || (cause as NodeJS.ErrnoException).code || cause.name;
  }
  return String(cause);
}
