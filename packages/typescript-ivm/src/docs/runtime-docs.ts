import type { EnvironmentConfig } from "../config.js";

/** How a tool call from code fails: the host's gate, as `status` and `code` of the rejection. */
const TOOL_ERRORS: [number, string, string][] = [
  [404, "not_found", "the service or the tool does not exist, or the process's API key may not reach it"],
  [403, "forbidden", "the API key that started the process was revoked or has expired"],
  [409, "service_disabled", "the service is disabled or stale"],
  [409, "tool_disabled", "the tool is disabled"],
  [400, "validation_failed", "the parameters do not match the input schema (`details` lists the problems)"],
  [403, "tool_denied", "the service's policy refuses this tool; nothing was sent"],
  [
    403,
    "approval_denied",
    "the tool needs an operator's approval and the operator denied this call (the message has the reason)",
  ],
  [
    403,
    "approval_expired",
    "the tool needs an operator's approval and nobody decided in time (or the process was stopped)",
  ],
  [502, "adapter_error", "the service call failed (the message comes from the adapter)"],
  [504, "invoke_timeout", "the service call took too long"],
];

/** {@link TOOL_ERRORS} as a Markdown table: here only (tool pages point to this reference). */
const TOOL_ERROR_TABLE = [
  "| status | code | when |",
  "| --- | --- | --- |",
  ...TOOL_ERRORS.map(([status, code, when]) => `| ${status} | \`${code}\` | ${when} |`),
].join("\n");

/** Markdown reference of everything process code can use (served at `GET /environment/docs`). */
export function renderRuntimeDocs(config: EnvironmentConfig): string {
  const kib = (bytes: number) => `${Math.round(bytes / 1024)} KiB`;
  return `# cyrnel runtime: typescript-ivm

Process code is **TypeScript** and runs as the body of an \`async\` function inside an isolated V8
sandbox. Top-level \`await\` works, and \`return\` ends the process early (a returned value is
discarded, with a note on stderr; report results with \`cyrnel.output\`). The process succeeds when
the code finishes, and fails on an uncaught exception.

${typecheckParagraph(config)}

\`\`\`ts
const forecast = await cyrnel.services.weather.tools.forecast.invoke({ city: "Oslo" });
console.log("got", forecast);
cyrnel.output({ forecast });
\`\`\`

## What exists

| Name | What it does |
| --- | --- |
| \`cyrnel.services.<service>.tools.<tool>.invoke(params)\` | Calls a tool; resolves with its result (JSON data). \`params\` is a JSON-serialisable object (default \`{}\`). |
| \`Object.keys(cyrnel.services)\` | The services enabled for this process; \`Object.keys(cyrnel.services.<service>.tools)\` lists its tools. |
| \`cyrnel.output(patch)\` | Shallow-merges \`patch\` (a plain, JSON-serialisable object) into the process output; later keys replace earlier ones. |
| \`console.log/info/debug(...args)\` | One line on stdout per call. Strings print as they are, other values in an inspect-like form. |
| \`console.warn/error(...args)\` | The same, on stderr. |
| \`setTimeout(callback, ms, ...args)\` / \`clearTimeout(id)\` | Timers; \`setTimeout\` returns a number. |
| \`atob\` / \`btoa\`, \`TextEncoder\` / \`TextDecoder\`, \`structuredClone\` | Base64 (of Latin-1 strings: bytes), UTF-8 encoding and decoding (no other encodings, no streaming), deep copies of plain data. |
| \`URL\`, \`URLSearchParams\` | The WHATWG URL standard: parse and build URLs (\`new URL(path, base)\`, \`url.searchParams.set(...)\`) and query strings. |
| \`crypto.getRandomValues(array)\`, \`crypto.randomUUID()\` | Cryptographically strong random values (no \`crypto.subtle\`). |
| Standard JavaScript | \`Promise\`, \`JSON\`, \`Math\`, \`Date\`, \`Map\`, \`Set\`, \`RegExp\`, \`Intl\`, typed arrays, … |

## What does not exist

No \`require\`, \`import\` (static or dynamic), \`process\`, \`fetch\` or any network access, no file
system, no \`Buffer\`, \`crypto.subtle\`, \`setInterval\`, \`queueMicrotask\`, \`WebAssembly\`,
\`Atomics.waitAsync\`, DOM or Node APIs. Reach the outside world only through tools. Every process runs
in a sandbox of its own, created for it and destroyed when it ends: nothing carries over between
processes, and nothing a process leaves behind (a \`FinalizationRegistry\` callback, a promise chain
that never ends) outlives it.

## Tool calls

Calls are asynchronous and may run in parallel:

\`\`\`ts
const [a, b] = await Promise.all([
  cyrnel.services.weather.tools.forecast.invoke({ city: "Oslo" }),
  cyrnel.services.weather.tools.forecast.invoke({ city: "Bergen" }),
]);
\`\`\`

A call resolves with the result alone. To read the response's status and headers too (a \`link\`
header to the next page, rate-limit headers), pass \`{ withResponse: true }\`: it resolves with
\`{ status, headers, body }\` (headers lower case; \`status\` null and \`headers\` empty when the
service's adapter has none; \`set-cookie\` is never passed on):

\`\`\`ts
const page = await cyrnel.services.github.tools.issues_list.invoke({ per_page: 100 }, { withResponse: true });
const next = /<([^>]+)>; rel="next"/.exec(page.headers.link ?? "")?.[1];
\`\`\`

A failed call rejects with an \`Error\` (name \`ToolCallError\`) carrying \`status\`, \`code\` and
sometimes \`details\`:

\`\`\`ts
try {
  await cyrnel.services.weather.tools.forecast.invoke({ city: "Oslo", days: 99 });
} catch (error) {
  const e = error as { status?: number; code?: string; message: string; details?: unknown };
  console.error(e.status, e.code, e.message); // 400 validation_failed (days is at most 7) ...
}
\`\`\`

${TOOL_ERROR_TABLE}

A service or tool that is not listed can still be called; the call then rejects with 404 or 409.
At most ${config.maxPendingToolCalls} calls may be in flight at once (more throw a \`RangeError\`).

### Approvals

An operator gives each tool a policy, shown on its docs page: \`allow\` (calls run), \`deny\` (every
call rejects with \`tool_denied\`, before anything is sent) or \`ask\`: each call then waits until an
operator approves or denies it. Meanwhile the process is \`suspended\` and its timeout is paused; the
\`invoke\` promise simply stays pending (other calls and timers go on). Approved, the call runs and
resolves as usual; denied, it rejects with \`approval_denied\` and the operator's reason in the message;
undecided in time, with \`approval_expired\`. Catch them to carry on without that call, and do not
retry a denied call in a loop.

## Output, logs and errors

- \`cyrnel.output\` throws a \`TypeError\` for anything that is not a plain object, and for values JSON
  cannot represent exactly: functions, symbols, BigInt, cycles. \`undefined\` properties are dropped.
- The merged output may be at most ${kib(config.maxOutputBytes)} of JSON; past that the process fails.
- stdout and stderr keep ${kib(config.maxLogBytes)} each; the rest is cut with a \`[cyrnel] … truncated\` line.
- An uncaught exception fails the process; its error reads \`Uncaught <Name>: <message>\` followed by
  the stack frames of your code (\`at code.ts:<line>:<column>\`, lines as you wrote them). Thrown
  non-Errors read \`Uncaught <value>\`. An exception inside a \`setTimeout\` callback fails the process too.
- A tool call that fails while nothing awaits or catches it, and nothing does later, does not fail the
  process: when the code ends, stderr gets \`[cyrnel] unhandled rejection of a tool call nobody awaited
  or caught: <error>\` with its line. Calls still in flight then are reported too (their results are
  lost: \`await\` what you start). A promise of your own that rejects with nobody taking it up fails
  the process: \`Uncaught (in promise) <Name>: <message> …\`.
- A syntax error fails the process before it runs: \`SyntaxError: <message> (line L, column C)\` (or, when
  the code is type-checked, \`code.ts:L:C TS1xxx <message>\`).

## Limits

- **Time**: the process's \`timeoutMs\` (wall clock, from when it starts running) ends it as \`timeout\`,
  whatever it is doing, including waiting on a tool call or a promise that never settles — except that
  the clock stops while the process is suspended (a call waits for an operator's approval). A process
  that waits for a free sandbox for longer than its \`timeoutMs\` ends as \`timeout\` without running.
- **Memory**: ${config.memoryLimitMb} MB of heap; exceeding it fails the process with
  \`Memory limit exceeded\`.
- **Timers**: at most ${config.maxTimers} pending. Timers end with the process: the process is over when the
  code's promise settles, and a timer still pending then never fires — \`await\` what you start:
  \`await new Promise((resolve) => setTimeout(resolve, 500));\`
- **Concurrency**: up to ${config.maxExecutions} processes at a time (a process awaiting a tool call or a timer
  takes memory, not a CPU); up to ${config.queueSize} more wait their turn, and past that a new process is refused
  with \`429 at_capacity\` and a \`Retry-After\` header, without running.
`;
}

function typecheckParagraph(config: EnvironmentConfig): string {
  const when = config.typecheck
    ? "Before it runs, the code is **type-checked**"
    : "When the process asks for it (`typecheck: true`; off by default here), the code is **type-checked** before it runs";
  return `${when} with TypeScript 5 against the types of the tools it can call (\`GET /environment/types\`)
and this runtime (strict; ES2023 library; a caught error is \`any\`). Type errors fail the process without
running anything: \`error\` lists them as \`code.ts:<line>:<column> TS<code> <message>\` (at most 20). A check
may take ${config.typecheckTimeoutMs} ms; past that the process fails without running too. Submit with
\`typecheck: false\` to run code unchecked (types are then only stripped).`;
}
