/** Types of durable-api.mjs (plain JavaScript, shared with bench/durable-runs.mjs). */
export interface Order {
  key: string;
  amount: number;
  nonce: number;
}

export interface DurableOutput {
  key: string;
  sum: number;
  put: number;
  order: { key: string; amount: number };
  nonceKept: boolean;
  clockKept: boolean;
}

export interface DurableApi {
  url: string;
  /** The OpenAPI 3.0 document, as the text given to `POST /services`. */
  definition: string;
  /** Requests received per `GET item <name>`, `PUT item <name>`, `POST order <key>`, `GET order <key>`. */
  readonly counts: Map<string, number>;
  /** Orders by key, as first received. */
  readonly orders: Map<string, Order>;
  /** Requests received so far, of every kind. */
  readonly requests: number;
  /** How many times the POST of `key` reached the upstream. */
  posts(key: string): number;
  /** The next GET of item `name` is counted and never answered. */
  hold(name: string): void;
  /** Resolves once `tag` (as in `counts`) was received `times` times. */
  arrived(tag: string, times?: number): Promise<void>;
  setMaxDelay(ms: number): void;
  close(): Promise<void>;
}

export function itemValue(name: string): number;
export function orderKey(campaign: string, index: number): string;
export function durableProgram(
  campaign: string,
  index: number,
  service?: string,
  options?: { sandboxValues?: boolean },
): string;
export function expectedOutput(campaign: string, index: number): DurableOutput;
export function sequentialProgram(name: string, calls: number, service?: string): string;
export function startDurableApi(options?: { maxDelayMs?: number; random?: () => number }): Promise<DurableApi>;
