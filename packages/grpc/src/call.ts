import { AdapterError } from "@cyrnel/sdk";
import * as grpc from "@grpc/grpc-js";

/**
 * Stage 6: one call on the wire with @grpc/grpc-js, request and response
 * as encoded bytes (the codec is `values.ts`'s business).
 *
 * - The deadline is the service's `timeoutMs`, sent to the server too.
 * - The host's `signal` (the call's own timeout, the end of the run, the
 *   host stopping) cancels the call at once (RST_STREAM to the server), as
 *   does the adapter's own teardown.
 * - A server stream is read into an array, bounded by a number of messages
 *   and by bytes; past either bound the call is cancelled and fails (a
 *   truncated list would read as the whole answer). One unary response is
 *   bounded by the channel's `grpc.max_receive_message_length`.
 */

export interface CallOptions {
  /** `pkg.Service/Method`, for messages. */
  method: string;
  path: string;
  request: Uint8Array;
  metadata: grpc.Metadata;
  timeoutMs: number;
  signals: (AbortSignal | undefined)[];
  maxMessages: number;
  maxBytes: number;
  /** Told the response's metadata: the headers, then the trailers (for `InvokeInput.respond`). */
  onMetadata?: (metadata: grpc.Metadata) => void;
}

/** Passes a call's response metadata (headers, then trailers) to `options.onMetadata`. */
function watchMetadata(call: grpc.ClientUnaryCall | grpc.ClientReadableStream<Buffer>, options: CallOptions): void {
  const told = options.onMetadata;
  if (told === undefined) return;
  call.on("metadata", (metadata: grpc.Metadata) => told(metadata));
  call.on("status", (status: grpc.StatusObject) => told(status.metadata));
}

const identity = (value: Buffer) => value;

/** Cancels `call` when any signal aborts; returns the cleanup and a reader of why it was cancelled. */
function linkSignals(call: grpc.Call, signals: (AbortSignal | undefined)[]) {
  let reason: unknown;
  const cancel = (signal: AbortSignal) => () => {
    reason ??= signal.reason;
    call.cancel();
  };
  const links = signals
    .filter((signal): signal is AbortSignal => signal !== undefined)
    .map((signal) => {
      const listener = cancel(signal);
      if (signal.aborted) listener();
      else signal.addEventListener("abort", listener, { once: true });
      return () => signal.removeEventListener("abort", listener);
    });
  return {
    unlink: () => {
      for (const off of links) off();
    },
    reason: () => reason,
  };
}

function canceled(method: string, reason: unknown): Error {
  const why = reason instanceof Error ? reason.message : reason === undefined ? "" : String(reason);
  return new Error(`the call to ${method} was canceled${why === "" ? "" : `: ${why}`}`);
}

export function unaryCall(client: grpc.Client, options: CallOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const deadline = Date.now() + options.timeoutMs;
    let link: ReturnType<typeof linkSignals> | undefined;
    const call = client.makeUnaryRequest(
      options.path,
      identity,
      identity,
      Buffer.from(options.request),
      options.metadata,
      { deadline },
      (error, response) => {
        link?.unlink();
        if (error) {
          if (error.code === grpc.status.CANCELLED && link?.reason() !== undefined) {
            reject(canceled(options.method, link.reason()));
          } else reject(error);
        } else resolve(response ?? Buffer.alloc(0));
      },
    );
    link = linkSignals(call, options.signals);
    watchMetadata(call, options);
  });
}

export function serverStreamCall(client: grpc.Client, options: CallOptions): Promise<Buffer[]> {
  return new Promise((resolve, reject) => {
    const deadline = Date.now() + options.timeoutMs;
    const call = client.makeServerStreamRequest(
      options.path,
      identity,
      identity,
      Buffer.from(options.request),
      options.metadata,
      { deadline },
    );
    const link = linkSignals(call, options.signals);
    watchMetadata(call, options);
    const messages: Buffer[] = [];
    let bytes = 0;
    let settled = false;
    const settle = (action: () => void) => {
      if (settled) return;
      settled = true;
      link.unlink();
      action();
    };
    call.on("data", (message: Buffer) => {
      messages.push(message);
      bytes += message.length;
      const over =
        messages.length > options.maxMessages
          ? `more than ${options.maxMessages} messages (the service's maxStreamMessages)`
          : bytes > options.maxBytes
            ? `more than ${options.maxBytes} bytes (the service's maxResponseBytes)`
            : null;
      if (over !== null) {
        settle(() => reject(new AdapterError(`the stream of ${options.method} sent ${over}; the call was cancelled`)));
        call.cancel();
      }
    });
    call.on("error", (error: grpc.ServiceError) => {
      settle(() =>
        reject(
          error.code === grpc.status.CANCELLED && link.reason() !== undefined
            ? canceled(options.method, link.reason())
            : error,
        ),
      );
    });
    call.on("end", () => settle(() => resolve(messages)));
  });
}
