/**
 * The host's HTTP API as TypeScript types, generated from its GET /openapi.json (the route definitions in
 * apps/host/src/routes). Do not edit: run `pnpm --filter @cyrnel/console generate:api` after changing a route.
 * test/api-types.test.ts fails while this file differs from what the host's routes generate.
 */
export interface paths {
    "/health": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Liveness and whether processes can run (no authentication)
         * @description Answers 200 whenever the host answers at all. `status` is `ok`, or `degraded` with `reasons` when processes cannot run normally: no environment is active, or the active one reports its sandbox wedged, restarting or unavailable. `role` is the host's `CYRNEL_ROLE`; hosts sharing a PostgreSQL database add their `hostId` and whether they hold their lease (`leaseAlive`; a host that lost it exits).
         */
        get: operations["health"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/openapi.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** This API's OpenAPI 3.1 description */
        get: operations["openapi"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/services": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List installed services */
        get: operations["listServices"];
        put?: never;
        /**
         * Install a service from a definition text or URL
         * @description The adapter turns the definition into tools. The service starts disabled unless `enabled: true`; if enabling then fails it stays installed and disabled and `enableError` says why.
         */
        post: operations["installService"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/services/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a service with its config and secrets schemas */
        get: operations["getService"];
        put?: never;
        post?: never;
        /** Delete a service, its tools, config and secrets */
        delete: operations["deleteService"];
        options?: never;
        head?: never;
        /**
         * Update a service from a new definition text or URL
         * @description Unchanged text (same hash) is a no-op. Tools that survive keep their enabled flag.
         */
        patch: operations["updateService"];
        trace?: never;
    };
    "/services/{id}/enabled": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Enable (validate config and secrets, hydrate) or disable (dehydrate) a service */
        post: operations["setServiceEnabled"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/services/{id}/config": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a service's config with defaults applied */
        get: operations["getServiceConfig"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Patch a service's config (merge patch object or RFC 6902 array)
         * @description Validated against the config schema; nothing is stored on failure. An enabled service is re-hydrated.
         */
        patch: operations["patchServiceConfig"];
        trace?: never;
    };
    "/services/{id}/secrets": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Names of the secrets that are set (never their values) */
        get: operations["getServiceSecrets"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Patch a service's secrets (write-only; same patch forms as config, `test` refused)
         * @description Besides the adapter's own secrets, any service takes secret HTTP headers and query parameters by name: `header:<Header-Name>` (an RFC 9110 token, not a framing header such as Host or Content-Length) and `query:<name>`, each a string, sent by the adapter on every request in place of a header or parameter of the same name (e.g. `{"header:Authorization": "token ghp_…"}`). The rest is validated against the secrets schema; nothing is stored on failure. An enabled service is re-hydrated.
         */
        patch: operations["patchServiceSecrets"];
        trace?: never;
    };
    "/services/install": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Install a service from a registry descriptor
         * @description Resolves `version` against the descriptor at `source`, downloads that version's definition, checks its sha256 (a mismatch is a 400 and nothing is installed), then installs it like `POST /services`, recording `source` and `version`. A registry that cannot be reached or fails is a 502 `upstream_error`.
         */
        post: operations["installServiceFromRegistry"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/services/{id}/update": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Update a registry-installed service to another version
         * @description Re-resolves the service's stored descriptor. The same definition text is no update (`updated: false`). Tools that survive keep their enabled flag. A service installed directly answers 409. A registry that cannot be reached or fails is a 502 `upstream_error` and the service is left as it was.
         */
        post: operations["updateServiceFromRegistry"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/tools": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List and search tools
         * @description Without `search`: every tool matching the filters, in service and definition order. With `search`: tools ranked by how well they match its words (BM25 over id, name, description, endpoint and service), best first; only callable tools unless `includeDisabled=true`; descriptions as plain text (HTML tags removed, entities decoded). The query's verb counts ("delete …" favours DELETE endpoints, "read …" GET, and finds get, list and download tools); an id or an endpoint, with or without its method, comes first. The other filters apply to both.
         */
        get: operations["listTools"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/tools/{serviceId}/{toolId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a tool with its input and output schemas */
        get: operations["getTool"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/tools/{serviceId}/{toolId}/input-override": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Override a tool's input constraints where the API's document is wrong
         * @description A JSON Merge Patch (RFC 7396) over the input schema the adapter made from the API's document, with the reason, recorded with who set it and when (shown as `inputOverride` on the tool). From then on the patched schema is the tool's: calls are validated against it, and types, docs and tool lists show it. It replaces an earlier override of the tool (it is always applied to the document's schema), and an update of the service applies it to the new document's schema. A patch that leaves no usable JSON Schema is a 400 naming why.
         */
        put: operations["setToolInputOverride"];
        post?: never;
        /** Remove a tool's input override: its input schema is the document's again */
        delete: operations["removeToolInputOverride"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/tools/{serviceId}/{toolId}/docs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Markdown reference for a tool, rendered by the active environment
         * @description At most CYRNEL_AGENT_TEXT_LIMIT_CHARS characters. Named types are declared once, those near the parameters and result in full; `expand` shows one more (or `Input`/`Output`, the whole parameter or result type).
         */
        get: operations["getToolDocs"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/tools/{serviceId}/{toolId}/enabled": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Enable or disable one tool */
        post: operations["setToolEnabled"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/services/{id}/tools/enabled": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Enable or disable many tools of a service at once
         * @description Every tool of the service, or those `toolIds` names, or those annotated destructive (`destructive: true`), or both narrowings together: switched in one transaction (one change for the other hosts, one new revision). A tool id the service does not have answers 404 and nothing changes.
         */
        post: operations["setServiceToolsEnabled"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/tools/{serviceId}/{toolId}/invoke": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Call a tool directly
         * @description Checked in this order before the adapter is called: service exists (404), tool exists (404), service enabled and not stale (409 service_disabled), tool enabled (409 tool_disabled), parameters match the input schema (400 validation_failed), the service's policy allows the tool (403 tool_denied; a tool whose policy is ask needs an approval for every call, which only a call from process code can wait for: 403 approval_required), the key has fewer than CYRNEL_KEY_INFLIGHT_CALLS calls in flight (429 rate_limited), a service that acts for a connected account has one for this caller (403 connection_required, with the URL to connect; a refresh the provider fails is 502 upstream_error). Then adapter errors → 502 adapter_error, a slow adapter → 504 invoke_timeout (its request is aborted), a host stopping meanwhile → 503 shutting_down. Every call is recorded (GET /calls).
         */
        post: operations["invokeTool"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/services/{id}/policy": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The tool policy of a service
         * @description A service whose policy was never set allows every call: `{default: allow, rules: []}`.
         */
        get: operations["getServicePolicy"];
        /**
         * Replace the tool policy of a service
         * @description What happens to a call of each tool: the first rule that matches the tool decides (`tools` is a glob over tool ids: `*` any run of characters, `?` one; `readOnly`/`destructive` match the tool's annotations, an absent one counting as false; every condition a rule names must hold), else `default` (allow when absent). allow: calls run; ask: a call from code waits for an operator's approval (a direct invoke is refused); deny: calls are refused before anything is sent. Rules may name tools the service does not have; the policy stays through updates of the service and goes with it when it is deleted.
         */
        put: operations["setServicePolicy"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/modules": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List adapter and environment modules */
        get: operations["listModules"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/modules/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a module with its config and secrets schemas */
        get: operations["getModule"];
        put?: never;
        post?: never;
        /** Delete a custom module (its services are deleted first) */
        delete: operations["deleteModule"];
        options?: never;
        head?: never;
        /**
         * Update a custom module from a `.tgz` URL
         * @description The previous version is kept in `modules/.backup/<id>/<version>/`. Every service of an updated adapter is regenerated from its stored definition (tool enabled flags kept); one the new code rejects becomes stale. If the new version fails to load (or an active module fails to start), the previous version is restored and keeps running, and the answer is a 400 naming the error. The URL is the caller's own input, so every download failure (including an unreachable host) is a 400, as for `POST /services` with `url`.
         */
        patch: operations["updateModuleFromUrl"];
        trace?: never;
    };
    "/modules/{id}/enabled": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Activate (setup) or deactivate (teardown) a module
         * @description Activating an adapter hydrates its enabled services. Enabling an environment makes it the active one; the previous environment stops after its running processes finish. Disabling an environment cancels its processes.
         */
        post: operations["setModuleEnabled"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/modules/{id}/config": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a module's config with defaults applied */
        get: operations["getModuleConfig"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /** Patch a module's config; an active module is restarted with it */
        patch: operations["patchModuleConfig"];
        trace?: never;
    };
    "/modules/{id}/secrets": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Names of the module secrets that are set */
        get: operations["getModuleSecrets"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /** Patch a module's secrets (write-only) */
        patch: operations["patchModuleSecrets"];
        trace?: never;
    };
    "/modules/reload": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Rescan the modules folder
         * @description New folders appear disabled, changed modules are reloaded, vanished ones are marked missing. Hosts sharing a PostgreSQL database: each custom module folder whose files differ from the ones stored in the database is packed and stored, so every host runs it (400 `bad_request`, before anything changes, for a folder that cannot be shared: a link, a special file, over the download size cap); a folder removed by hand comes back from the database (`DELETE /modules/{id}` deletes a module).
         */
        post: operations["reloadModules"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/modules/install": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Install a custom module from a registry descriptor
         * @description Downloads the chosen version's `.tgz`, checks its sha256, unpacks it safely and loads it. The module id comes from its module.json; it starts disabled. A registry that cannot be reached or fails is a 502 `upstream_error`.
         */
        post: operations["installModuleFromRegistry"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/modules/{id}/update": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Update a registry-installed module to another version
         * @description The previous version is kept in `modules/.backup/<id>/<version>/`. Every service of an updated adapter is regenerated from its stored definition (tool enabled flags kept); one the new code rejects becomes stale. If the new version fails to load (or an active module fails to start), the previous version is restored and keeps running, and the answer is a 400 naming the error. A registry that cannot be reached or fails is a 502 `upstream_error`.
         */
        post: operations["updateModuleFromRegistry"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/registries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the registries that were added */
        get: operations["listRegistries"];
        put?: never;
        /**
         * Add a registry
         * @description Fetches `<url>/.well-known/cyrnel-registry.json` and checks it. Relative index URLs in it are resolved against the document's own URL. A registry that cannot be reached, times out or answers HTTP 5xx is a 502 `upstream_error`; an HTTP 4xx, invalid JSON or a document of the wrong shape is a 400. Both name the URL and the reason.
         */
        post: operations["addRegistry"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/registries/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a registry */
        get: operations["getRegistry"];
        put?: never;
        post?: never;
        /**
         * Forget a registry
         * @description Services and modules installed from it keep their descriptor URL and can still be updated.
         */
        delete: operations["deleteRegistry"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/registries/{id}/definitions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Browse a registry's service definitions
         * @description Reads the registry's index live, following `next` links (at most 50 pages and 10,000 items), then filters and pages the result. A registry that publishes no such index has no items. Pass an item's `source` to the matching install route. An unreachable or failing registry is a 502 `upstream_error`, an invalid index page a 400.
         */
        get: operations["browseRegistryDefinitions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/registries/{id}/modules": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Browse a registry's modules
         * @description Reads the registry's index live, following `next` links (at most 50 pages and 10,000 items), then filters and pages the result. A registry that publishes no such index has no items. Pass an item's `source` to the matching install route. An unreachable or failing registry is a 502 `upstream_error`, an invalid index page a 400.
         */
        get: operations["browseRegistryModules"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/processes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List processes, newest first or oldest first (an agent key: its own only)
         * @description Filters combine. `refPrefix` matches refs that start with the text, case-sensitively, every character as itself (`%`, `_`, `*` are no wildcards); `since`/`until` bound the creation time. `order=oldest` lists upwards; a cursor continues in the order it came from.
         */
        get: operations["listProcesses"];
        put?: never;
        /**
         * Run TypeScript in the active environment
         * @description Code runs as the body of an async function (top-level await). With `block: true` the response waits until the process is idle and carries `output`, `stdout` and `stderr`.
         */
        post: operations["createProcess"];
        /**
         * Delete every idle process that finished before a time, with its runs, call records and approvals
         * @description What `CYRNEL_PROCESSES_RETENTION_DAYS` does daily, on demand. Processes still queued, running or suspended are never deleted. `finishedBefore` is required, so that nothing is deleted by accident.
         */
        delete: operations["pruneProcesses"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/processes/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a process */
        get: operations["getProcess"];
        put?: never;
        post?: never;
        /** Delete an idle process and its results */
        delete: operations["deleteProcess"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/processes/{id}/code": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The submitted source */
        get: operations["getProcessCode"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/processes/{id}/output": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Everything passed to cyrnel.output(...), shallow-merged (once idle) */
        get: operations["getProcessOutput"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/processes/{id}/stdout": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The process's stdout (once idle) */
        get: operations["getProcessStdout"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/processes/{id}/stderr": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The process's stderr (once idle) */
        get: operations["getProcessStderr"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/processes/{id}/results": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The results of an idle process, sized for an LLM
         * @description The process with its output, stdout and stderr (as `POST /processes` with `block` answers), but with stdout, stderr, the output's JSON and the error within CYRNEL_AGENT_TEXT_LIMIT_CHARS characters in total. Texts that fit an equal share are whole; a longer one keeps its head and tail around a marker that names the offset to read on from with `GET /processes/{id}/text`, and is listed in `cut`. A cut output is its JSON text.
         */
        get: operations["getProcessResults"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/processes/{id}/text": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A page of an idle process's stdout, stderr, output JSON or error
         * @description Offsets count UTF-16 code units (JavaScript's string length); `limit` counts characters as the page's text takes them inside JSON (a quote or a newline two), like the limit of a process's results, so no page is longer than it; a page never ends inside a surrogate pair. Read on from `nextOffset` until it is null: the pages join to the whole text (for `output`, exactly the body of `GET /processes/{id}/output`).
         */
        get: operations["getProcessText"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/processes/{id}/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Follow a process live: stdout and stderr as they are written, then its end
         * @description Newline-delimited JSON, one event per line: `{"type":"stdout"|"stderr","text"}` for what was written so far and then for each new chunk; `{"type":"call", ...callRecord}` when a tool call ends; `{"type":"approval", ...approval}` for each approval the process waits for when the reader comes, and when one is created or decided (the process is suspended while one is pending); and last `{"type":"end","process"}` with the idle process and its results (as `POST /processes` with `block` answers). An idle process answers its stored text and the end at once. Text past the stream cap is dropped after one marker line. A running process takes a limited number of live followers (CYRNEL_PROCESS_FOLLOWERS_LIMIT); past it, 429.
         */
        get: operations["followProcess"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/processes/{id}/signals/run": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Run an idle process again
         * @description Replacing the results of an earlier run needs `force: true`.
         */
        post: operations["runProcess"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/processes/{id}/signals/kill": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Cancel a queued or running process
         * @description queued → idle/canceled; running or suspended → terminating → idle/canceled (the approvals a suspended process waits for expire); idle → 409.
         */
        post: operations["killProcess"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/approvals": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List approvals, newest first
         * @description Calls of tools whose policy is `ask` wait for one of these to be approved or denied. Each item's `parameters` is a preview (at most 2048 characters of JSON) with the whole value's size and SHA-256; `GET /approvals/{id}` has the parameters whole. Each pending one says when it expires (`expiresAt`), each carries its tool's annotations (`toolAnnotations`). Paged like every list (`limit`, `cursor`). An agent key sees the approvals of its own processes only (what its calls wait for, their parameters and expiry).
         */
        get: operations["listApprovals"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/approvals/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get an approval, with its parameters whole
         * @description The call's parameters as the operator decides on them (secret values masked), at most CYRNEL_BODY_LIMIT_BYTES of JSON; `parametersSha256` is the SHA-256 of their JSON text. An agent key reads the approvals of its own processes only (another's is a 404).
         */
        get: operations["getApproval"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/approvals/{id}/approve": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Approve a pending call
         * @description The call goes on (once) and the process runs again when it waits for nothing else. A decided approval answers 409.
         */
        post: operations["approveApproval"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/approvals/{id}/deny": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Deny a pending call
         * @description The call throws `403 approval_denied` in the process's code, with the reason in its message. A decided approval answers 409.
         */
        post: operations["denyApproval"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/approvals/decisions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Approve or deny many pending calls with one reason
         * @description Each id is decided exactly as `POST /approvals/{id}/approve` or `/deny` decides it, one after the other in the order given; one that cannot be (already decided: `conflict`; `not_found`) is reported in its result and the others go on. Answers 200 with one result per distinct id.
         */
        post: operations["decideApprovals"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/calls": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The record of tool calls, newest first
         * @description Every tool call, from process code or a direct invoke, allowed or refused: who made it (process, key), what it called, when, how long it took, how it ended (`ok` or the error code) and a preview of its parameters with secret values masked. Kept CYRNEL_CALLS_RETENTION_DAYS days.
         */
        get: operations["listCalls"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/processes/{id}/calls": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The tool calls of a process, newest first
         * @description Of every run of the process (re-runs included), allowed or refused, as `GET /calls` shows them. An agent key reaches the calls of the processes it created.
         */
        get: operations["listProcessCalls"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/environment/docs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Markdown reference of what code can use inside the active environment */
        get: operations["getEnvironmentDocs"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/environment/types": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * TypeScript declarations of `cyrnel` typed for the effectively enabled tools (all, or those filtered)
         * @description At most CYRNEL_AGENT_TEXT_LIMIT_CHARS characters: when the declarations are longer, the answer is an index of the tools (as comments) saying how to narrow the request. Tools whose JSON Schemas exceed CYRNEL_TYPES_BUDGET_CHARS (in total; an eighth of it per tool) are refused with 413 types_too_large before they are read.
         */
        get: operations["getEnvironmentTypes"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List API keys, oldest first, revoked ones too (never the keys themselves) */
        get: operations["listKeys"];
        put?: never;
        /**
         * Create an API key (the key is shown in this answer only)
         * @description `key` is `cyk_` and 43 base64url characters; only its SHA-256 is stored, so it cannot be shown again. Creating the first key turns authentication on. Without CYRNEL_API_KEY the first key must be an admin key (409 otherwise), so that someone can still manage the host. `services` (agent keys only) limits the services the key sees and calls; ids of services not installed yet are allowed.
         */
        post: operations["createKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/keys/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get an API key, live or revoked (never the key itself) */
        get: operations["getKey"];
        put?: never;
        post?: never;
        /**
         * Revoke an API key at once
         * @description The next request with the key is a 401, and tool calls of processes it started fail with 403 forbidden. The key stays listed, with `revokedAt` and `revokedBy`; revoking it again is a 404. Without CYRNEL_API_KEY the last admin key cannot be revoked (409).
         */
        delete: operations["revokeKey"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/.well-known/oauth-protected-resource": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * OAuth protected resource metadata (no authentication)
         * @description The OAuth 2.0 protected resource metadata (RFC 9728) of this host: the authorization server (`CYRNEL_OAUTH_ISSUER`) whose access tokens it accepts, and the resource (`CYRNEL_ADVERTISE_URL`) they must be for. `cyrnel:agent` or `cyrnel:admin` gives the role; `cyrnel:service:<id>` scopes narrow an agent to those services. 404 when OAuth is off.
         */
        get: operations["oauthProtectedResource"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/.well-known/oauth-protected-resource/mcp": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * OAuth protected resource metadata, for the MCP endpoint (no authentication)
         * @description The OAuth 2.0 protected resource metadata (RFC 9728) of this host: the authorization server (`CYRNEL_OAUTH_ISSUER`) whose access tokens it accepts, and the resource (`CYRNEL_ADVERTISE_URL`) they must be for. `cyrnel:agent` or `cyrnel:admin` gives the role; `cyrnel:service:<id>` scopes narrow an agent to those services. 404 when OAuth is off. The same document, at the path RFC 9728 derives from `/mcp`.
         */
        get: operations["oauthProtectedResourceMcp"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/services/{id}/oauth": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The OAuth client a service's connected accounts use (never its secret) */
        get: operations["getServiceOAuth"];
        /**
         * Set up connections: the OAuth client, its URLs and whose account calls use
         * @description From then on every call of the service acts for a connected account: the shared one, or the caller's own (`credentials: per-caller`). URLs and scopes left out are the ones the service's definition declares (an OpenAPI `authorizationCode` flow); without one, give `authorizationUrl` and `tokenUrl`. Register `redirectUri` (in the answer) at the provider. Changing `credentials` drops the existing connections.
         */
        put: operations["putServiceOAuth"];
        post?: never;
        /** Turn connections off: the client, and every connected account of the service */
        delete: operations["deleteServiceOAuth"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/services/{id}/connections": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Connected accounts of a service (an agent sees its own; never a token) */
        get: operations["listConnections"];
        put?: never;
        /**
         * Connect an account: an authorization URL to open in a browser
         * @description PKCE (S256) with a single-use `state`, good for 10 minutes. The provider sends the browser back to `/oauth/callback`, which stores the tokens (sealed like secrets). Under `per-caller` credentials the account is the caller's own (an agent may connect its own); the `shared` account is connected by an admin. A new connection replaces the owner's previous one.
         */
        post: operations["startConnection"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/services/{id}/connections/{connectionId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Revoke a connected account (at the provider too, when it has a revocation URL) */
        delete: operations["deleteConnection"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/oauth/callback": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Where a provider sends the browser back after the user signed in (no authentication)
         * @description Takes the request its `state` names (once; 400 for a state unknown, used or older than 10 minutes), trades the code for tokens and stores them. Answers a short HTML page, or JSON with `Accept: application/json`.
         */
        get: operations["connectionCallback"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/stats": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Exact counts of services, tools, processes, approvals, capacity and the queue
         * @description One small answer, counted from indexes (a few milliseconds with 100,000 processes kept): services (total, enabled), tools (total; callable = enabled tools of enabled services that are not stale), processes live now by state and those whose latest run ended since `since` (default: 24 hours ago) by exit state, with the queue timeouts among them, pending approvals, this host's environment's admission and load, and the depth of the queue runs wait in.
         */
        get: operations["getStats"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Prometheus metrics of this host (admin key or CYRNEL_METRICS_TOKEN)
         * @description The Prometheus text format: tool calls by service, tool and outcome with their latency, approvals with their wait, processes ended by exit state, runs by state, 429s by code, the queue's depth, the sandbox's executions and memory, HTTP requests by route template and status, and Node's process metrics (`cyrnel_` prefix). Each host reports its own. Besides an admin key, the bearer token `CYRNEL_METRICS_TOKEN` (when set) is accepted here and nowhere else.
         */
        get: operations["metrics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        Error: {
            /** @description Human-readable message */
            error: string;
            /** @description Stable machine-readable code */
            code: "bad_request" | "validation_failed" | "unauthorized" | "tool_denied" | "approval_required" | "approval_denied" | "approval_expired" | "connection_required" | "forbidden" | "cross_site_refused" | "not_found" | "conflict" | "service_disabled" | "tool_disabled" | "payload_too_large" | "types_too_large" | "unsupported_media_type" | "too_many_followers" | "at_capacity" | "rate_limited" | "call_canceled" | "too_many_pending_approvals" | "internal" | "adapter_error" | "upstream_error" | "no_environment" | "issuer_unavailable" | "shutting_down" | "database_unavailable" | "insufficient_storage" | "invoke_timeout";
            details?: unknown;
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    health: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The host is up; `status` says whether processes can run */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        status: "ok" | "degraded";
                        version: string;
                        reasons?: string[];
                        role: "all" | "api" | "worker";
                        hostId?: string;
                        leaseAlive?: boolean;
                    };
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    openapi: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OpenAPI document */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description cross_site_refused */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description issuer_unavailable, shutting_down, database_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_storage */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listServices: {
        parameters: {
            query?: {
                query?: string;
                enabled?: boolean;
                adapter?: string;
                limit?: number;
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of services */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            /** @description The id used in code: cyrnel.services.<id> */
                            id: string;
                            name: string;
                            description: string;
                            /** @description Id of the adapter module */
                            adapter: string;
                            source: string | null;
                            version: string | null;
                            /** @description SHA-256 of the definition text */
                            hash: string;
                            /** @description Only enabled services that are not stale can be called */
                            enabled: boolean;
                            /** @description The adapter no longer accepts the stored definition; an operator must update it */
                            stale: boolean;
                            toolCount: number;
                            /** Format: date-time */
                            createdAt: string;
                            /** Format: date-time */
                            updatedAt: string;
                        }[];
                        nextCursor: string | null;
                    };
                };
            };
            /** @description bad_request, validation_failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description cross_site_refused */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description issuer_unavailable, shutting_down, database_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_storage */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    installService: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Service id: a valid, non-reserved TypeScript identifier */
                    id: string;
                    /** @description Adapter module id, e.g. openapi */
                    adapter: string;
                    /** @description The definition text (e.g. an OpenAPI document) */
                    definition?: string;
                    /** @description http(s) URL to download the definition from (≤ 32 MiB, 10 s) */
                    url?: string;
                    enabled?: boolean;
                };
            };
        };
        responses: {
            /** @description Installed */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The id used in code: cyrnel.services.<id> */
                        id: string;
                        name: string;
                        description: string;
                        /** @description Id of the adapter module */
                        adapter: string;
                        source: string | null;
                        version: string | null;
                        /** @description SHA-256 of the definition text */
                        hash: string;
                        /** @description Only enabled services that are not stale can be called */
                        enabled: boolean;
                        /** @description The adapter no longer accepts the stored definition; an operator must update it */
                        stale: boolean;
                        toolCount: number;
                        /** Format: date-time */
                        createdAt: string;
                        /** Format: date-time */
                        updatedAt: string;
                        staleReason: string | null;
                        error: string | null;
                        configSchema: {
                            [key: string]: unknown;
                        };
                        secretsSchema: {
                            [key: string]: unknown;
                        };
                        /** @description Present when the service's tools are too large to type whole: whole-service types are refused (413 types_too_large) and code is type-checked against the tools it names */
                        typesNote?: string;
                        /** @description Why enabling failed; the service stays installed and disabled */
                        enableError?: {
                            code: string;
                            error: string;
                        };
                    };
                };
            };
            /** @description bad_request, validation_failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description cross_site_refused, forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description adapter_error */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description issuer_unavailable, shutting_down, database_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description invoke_timeout */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_storage */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getService: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The service */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The id used in code: cyrnel.services.<id> */
                        id: string;
                        name: string;
                        description: string;
                        /** @description Id of the adapter module */
                        adapter: string;
                        source: string | null;
                        version: string | null;
                        /** @description SHA-256 of the definition text */
                        hash: string;
                        /** @description Only enabled services that are not stale can be called */
                        enabled: boolean;
                        /** @description The adapter no longer accepts the stored definition; an operator must update it */
                        stale: boolean;
                        toolCount: number;
                        /** Format: date-time */
                        createdAt: string;
                        /** Format: date-time */
                        updatedAt: string;
                        staleReason: string | null;
                        error: string | null;
                        configSchema: {
                            [key: string]: unknown;
                        };
                        secretsSchema: {
                            [key: string]: unknown;
                        };
                        /** @description Present when the service's tools are too large to type whole: whole-service types are refused (413 types_too_large) and code is type-checked against the tools it names */
                        typesNote?: string;
                    };
                };
            };
            /** @description validation_failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description cross_site_refused */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description issuer_unavailable, shutting_down, database_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_storage */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteService: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description validation_failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description cross_site_refused, forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description issuer_unavailable, shutting_down, database_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_storage */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    updateService: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The definition text (e.g. an OpenAPI document) */
                    definition?: string;
                    /** @description http(s) URL to download the definition from (≤ 32 MiB, 10 s) */
                    url?: string;
                };
            };
        };
        responses: {
            /** @description Update result */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        /** @description false when the definition text is unchanged (same hash) */
                        updated: boolean;
                        enabled: boolean;
                        /** @description Why enabling failed; the service stays installed and disabled */
                        enableError?: {
                            code: string;
                            error: string;
                        };
                        /** @description Present when the service's tools are too large to type whole: whole-service types are refused (413 types_too_large) and code is type-checked against the tools it names */
                        typesNote?: string;
                    };
                };
            };
            /** @description bad_request, validation_failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description cross_site_refused, forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description adapter_error */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description issuer_unavailable, shutting_down, database_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description invoke_timeout */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_storage */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    setServiceEnabled: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    enabled: boolean;
                };
            };
        };
        responses: {
            /** @description The service */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The id used in code: cyrnel.services.<id> */
                        id: string;
                        name: string;
                        description: string;
                        /** @description Id of the adapter module */
                        adapter: string;
                        source: string | null;
                        version: string | null;
                        /** @description SHA-256 of the definition text */
                        hash: string;
                        /** @description Only enabled services that are not stale can be called */
                        enabled: boolean;
                        /** @description The adapter no longer accepts the stored definition; an operator must update it */
                        stale: boolean;
                        toolCount: number;
                        /** Format: date-time */
                        createdAt: string;
                        /** Format: date-time */
                        updatedAt: string;
                        staleReason: string | null;
                        error: string | null;
                        configSchema: {
                            [key: string]: unknown;
                        };
                        secretsSchema: {
                            [key: string]: unknown;
                        };
                        /** @description Present when the service's tools are too large to type whole: whole-service types are refused (413 types_too_large) and code is type-checked against the tools it names */
                        typesNote?: string;
                    };
                };
            };
            /** @description bad_request, validation_failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description cross_site_refused, forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description adapter_error */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description issuer_unavailable, shutting_down, database_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description invoke_timeout */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_storage */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getServiceConfig: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The config */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        config: {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description validation_failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description cross_site_refused, forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description issuer_unavailable, shutting_down, database_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_storage */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    patchServiceConfig: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    [key: string]: unknown;
                } | {
                    /** @description add, remove, replace, move, copy or test */
                    op: string;
                    path: string;
                    from?: string;
                    value?: unknown;
                }[];
            };
        };
        responses: {
            /** @description The new config */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        config: {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description bad_request, validation_failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description cross_site_refused, forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description adapter_error */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description issuer_unavailable, shutting_down, database_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description invoke_timeout */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_storage */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getServiceSecrets: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Secret names */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Names of the secrets that have a value (never the values) */
                        set: string[];
                    };
                };
            };
            /** @description validation_failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description cross_site_refused, forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description issuer_unavailable, shutting_down, database_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_storage */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    patchServiceSecrets: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    [key: string]: unknown;
                } | {
                    /** @description add, remove, replace, move, copy or test */
                    op: string;
                    path: string;
                    from?: string;
                    value?: unknown;
                }[];
            };
        };
        responses: {
            /** @description Secret names */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Names of the secrets that have a value (never the values) */
                        set: string[];
                    };
                };
            };
            /** @description bad_request, validation_failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description cross_site_refused, forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description adapter_error */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description issuer_unavailable, shutting_down, database_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description invoke_timeout */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_storage */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    installServiceFromRegistry: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Descriptor URL (an index item's `source`) */
                    source: string;
                    /** @description Service id; defaults to the descriptor's id */
                    id?: string;
                    /** @description Exact version, semver range, or omitted for the descriptor's latestVersion */
                    version?: string;
                    /** @description Adapter module id; defaults to openapi */
                    adapter?: string;
                    enabled?: boolean;
                };
            };
        };
        responses: {
            /** @description Installed */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The id used in code: cyrnel.services.<id> */
                        id: string;
                        name: string;
                        description: string;
                        /** @description Id of the adapter module */
                        adapter: string;
                        source: string | null;
                        version: string | null;
                        /** @description SHA-256 of the definition text */
                        hash: string;
                        /** @description Only enabled services that are not stale can be called */
                        enabled: boolean;
                        /** @description The adapter no longer accepts the stored definition; an operator must update it */
                        stale: boolean;
                        toolCount: number;
                        /** Format: date-time */
                        createdAt: string;
                        /** Format: date-time */
                        updatedAt: string;
                        staleReason: string | null;
                        error: string | null;
                        configSchema: {
                            [key: string]: unknown;
                        };
                        secretsSchema: {
                            [key: string]: unknown;
                        };
                        /** @description Present when the service's tools are too large to type whole: whole-service types are refused (413 types_too_large) and code is type-checked against the tools it names */
                        typesNote?: string;
                        /** @description Why enabling failed; the service stays installed and disabled */
                        enableError?: {
                            code: string;
                            error: string;
                        };
                    };
                };
            };
            /** @description bad_request, validation_failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description cross_site_refused, forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description adapter_error, upstream_error */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description issuer_unavailable, shutting_down, database_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description invoke_timeout */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_storage */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    updateServiceFromRegistry: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Exact version, semver range, or omitted for the descriptor's latestVersion */
                    version?: string;
                };
            };
        };
        responses: {
            /** @description Update result */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        /** @description false when the definition text is unchanged (same hash) */
                        updated: boolean;
                        enabled: boolean;
                        /** @description Why enabling failed; the service stays installed and disabled */
                        enableError?: {
                            code: string;
                            error: string;
                        };
                        /** @description Present when the service's tools are too large to type whole: whole-service types are refused (413 types_too_large) and code is type-checked against the tools it names */
                        typesNote?: string;
                        fromVersion: string | null;
                        /** @description The version now installed (the previous one when nothing changed) */
                        toVersion: string | null;
                    };
                };
            };
            /** @description bad_request, validation_failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description cross_site_refused, forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description adapter_error, upstream_error */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description issuer_unavailable, shutting_down, database_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description invoke_timeout */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_storage */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listTools: {
        parameters: {
            query?: {
                serviceId?: string;
                query?: string;
                search?: string;
                includeDisabled?: boolean;
                enabled?: boolean;
                include?: "schemas";
                limit?: number;
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of tools */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            serviceId: string;
                            /** @description The id used in code: cyrnel.services.<serviceId>.tools.<id> */
                            id: string;
                            name: string;
                            description: string;
                            enabled: boolean;
                            /** @description Tool and service enabled, service not stale; false: calls fail */
                            effectivelyEnabled: boolean;
                            /** @description What the adapter says calling the tool does (the meaning of MCP's tool annotations); hints only */
                            annotations: {
                                /** @description Calling it changes nothing (e.g. HTTP GET) */
                                readOnly?: boolean;
                                /** @description It may delete or overwrite data (e.g. HTTP DELETE) */
                                destructive?: boolean;
                                /** @description Repeating a call has no further effect (PUT, DELETE) */
                                idempotent?: boolean;
                                /** @description It reaches a service outside the host */
                                openWorld?: boolean;
                            };
                            /** @description allow: calls run; ask: a call from code waits for an operator's approval; deny: calls are refused */
                            policy: "allow" | "ask" | "deny";
                            /** @description Present when calls cannot authenticate yet: the service secrets the tool needs, as alternatives (one alternative's names all set is enough), none of which is set. Calls fail until an operator sets one (PATCH /services/{id}/secrets) */
                            missingSecrets?: string[][];
                            inputSchema?: {
                                [key: string]: unknown;
                            };
                            outputSchema?: {
                                [key: string]: unknown;
                            };
                        }[];
                        nextCursor: string | null;
                    };
                };
            };
            /** @description bad_request, validation_failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description cross_site_refused */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description issuer_unavailable, shutting_down, database_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_storage */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getTool: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                serviceId: string;
                toolId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The tool */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        serviceId: string;
                        /** @description The id used in code: cyrnel.services.<serviceId>.tools.<id> */
                        id: string;
                        name: string;
                        description: string;
                        enabled: boolean;
                        /** @description Tool and service enabled, service not stale; false: calls fail */
                        effectivelyEnabled: boolean;
                        /** @description What the adapter says calling the tool does (the meaning of MCP's tool annotations); hints only */
                        annotations: {
                            /** @description Calling it changes nothing (e.g. HTTP GET) */
                            readOnly?: boolean;
                            /** @description It may delete or overwrite data (e.g. HTTP DELETE) */
                            destructive?: boolean;
                            /** @description Repeating a call has no further effect (PUT, DELETE) */
                            idempotent?: boolean;
                            /** @description It reaches a service outside the host */
                            openWorld?: boolean;
                        };
                        /** @description allow: calls run; ask: a call from code waits for an operator's approval; deny: calls are refused */
                        policy: "allow" | "ask" | "deny";
                        /** @description Present when calls cannot authenticate yet: the service secrets the tool needs, as alternatives (one alternative's names all set is enough), none of which is set. Calls fail until an operator sets one (PATCH /services/{id}/secrets) */
                        missingSecrets?: string[][];
                        inputSchema: {
                            [key: string]: unknown;
                        };
                        outputSchema: {
                            [key: string]: unknown;
                        };
                        /** @description On a single tool's answer: the operator's override of its input constraints (inputSchema is the patched one), or null when the schema is the document's */
                        inputOverride?: {
                            patch: {
                                [key: string]: unknown;
                            };
                            reason: string;
                            /** @description The key's name (or "the host's API key") */
                            setBy: string;
                            /** Format: date-time */
                            setAt: string;
                            /** @description The input schema the adapter made from the API's document, before the patch */
                            documentInputSchema: unknown;
                        } | null;
                    };
                };
            };
            /** @description validation_failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description cross_site_refused */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description issuer_unavailable, shutting_down, database_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_storage */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    setToolInputOverride: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                serviceId: string;
                toolId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description A JSON Merge Patch (RFC 7396) applied to the input schema the API's document gives, e.g. `{"properties": {"orderId": {"maximum": null}}}` lifts a maximum; `null` removes a keyword */
                    patch: {
                        [key: string]: unknown;
                    };
                    /** @description Why (recorded with it): e.g. the API returns orders past the documented maximum */
                    reason: string;
                };
            };
        };
        responses: {
            /** @description The tool, with its patched input schema */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        serviceId: string;
                        /** @description The id used in code: cyrnel.services.<serviceId>.tools.<id> */
                        id: string;
                        name: string;
                        description: string;
                        enabled: boolean;
                        /** @description Tool and service enabled, service not stale; false: calls fail */
                        effectivelyEnabled: boolean;
                        /** @description What the adapter says calling the tool does (the meaning of MCP's tool annotations); hints only */
                        annotations: {
                            /** @description Calling it changes nothing (e.g. HTTP GET) */
                            readOnly?: boolean;
                            /** @description It may delete or overwrite data (e.g. HTTP DELETE) */
                            destructive?: boolean;
                            /** @description Repeating a call has no further effect (PUT, DELETE) */
                            idempotent?: boolean;
                            /** @description It reaches a service outside the host */
                            openWorld?: boolean;
                        };
                        /** @description allow: calls run; ask: a call from code waits for an operator's approval; deny: calls are refused */
                        policy: "allow" | "ask" | "deny";
                        /** @description Present when calls cannot authenticate yet: the service secrets the tool needs, as alternatives (one alternative's names all set is enough), none of which is set. Calls fail until an operator sets one (PATCH /services/{id}/secrets) */
                        missingSecrets?: string[][];
                        inputSchema: {
                            [key: string]: unknown;
                        };
                        outputSchema: {
                            [key: string]: unknown;
                        };
                        /** @description On a single tool's answer: the operator's override of its input constraints (inputSchema is the patched one), or null when the schema is the document's */
                        inputOverride?: {
                            patch: {
                                [key: string]: unknown;
                            };
                            reason: string;
                            /** @description The key's name (or "the host's API key") */
                            setBy: string;
                            /** Format: date-time */
                            setAt: string;
                            /** @description The input schema the adapter made from the API's document, before the patch */
                            documentInputSchema: unknown;
                        } | null;
                    };
                };
            };
            /** @description bad_request, validation_failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description cross_site_refused, forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description issuer_unavailable, shutting_down, database_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_storage */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    removeToolInputOverride: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                serviceId: string;
                toolId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The tool, with the document's input schema */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        serviceId: string;
                        /** @description The id used in code: cyrnel.services.<serviceId>.tools.<id> */
                        id: string;
                        name: string;
                        description: string;
                        enabled: boolean;
                        /** @description Tool and service enabled, service not stale; false: calls fail */
                        effectivelyEnabled: boolean;
                        /** @description What the adapter says calling the tool does (the meaning of MCP's tool annotations); hints only */
                        annotations: {
                            /** @description Calling it changes nothing (e.g. HTTP GET) */
                            readOnly?: boolean;
                            /** @description It may delete or overwrite data (e.g. HTTP DELETE) */
                            destructive?: boolean;
                            /** @description Repeating a call has no further effect (PUT, DELETE) */
                            idempotent?: boolean;
                            /** @description It reaches a service outside the host */
                            openWorld?: boolean;
                        };
                        /** @description allow: calls run; ask: a call from code waits for an operator's approval; deny: calls are refused */
                        policy: "allow" | "ask" | "deny";
                        /** @description Present when calls cannot authenticate yet: the service secrets the tool needs, as alternatives (one alternative's names all set is enough), none of which is set. Calls fail until an operator sets one (PATCH /services/{id}/secrets) */
                        missingSecrets?: string[][];
                        inputSchema: {
                            [key: string]: unknown;
                        };
                        outputSchema: {
                            [key: string]: unknown;
                        };
                        /** @description On a single tool's answer: the operator's override of its input constraints (inputSchema is the patched one), or null when the schema is the document's */
                        inputOverride?: {
                            patch: {
                                [key: string]: unknown;
                            };
                            reason: string;
                            /** @description The key's name (or "the host's API key") */
                            setBy: string;
                            /** Format: date-time */
                            setAt: string;
                            /** @description The input schema the adapter made from the API's document, before the patch */
                            documentInputSchema: unknown;
                        } | null;
                    };
                };
            };
            /** @description validation_failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description cross_site_refused, forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description issuer_unavailable, shutting_down, database_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_storage */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getToolDocs: {
        parameters: {
            query?: {
                expand?: string;
            };
            header?: never;
            path: {
                serviceId: string;
                toolId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Markdown */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/markdown; charset=utf-8": string;
                };
            };
            /** @description validation_failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description cross_site_refused */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description adapter_error */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description no_environment, issuer_unavailable, shutting_down, database_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description invoke_timeout */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_storage */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    setToolEnabled: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                serviceId: string;
                toolId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    enabled: boolean;
                };
            };
        };
        responses: {
            /** @description The tool */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        serviceId: string;
                        /** @description The id used in code: cyrnel.services.<serviceId>.tools.<id> */
                        id: string;
                        name: string;
                        description: string;
                        enabled: boolean;
                        /** @description Tool and service enabled, service not stale; false: calls fail */
                        effectivelyEnabled: boolean;
                        /** @description What the adapter says calling the tool does (the meaning of MCP's tool annotations); hints only */
                        annotations: {
                            /** @description Calling it changes nothing (e.g. HTTP GET) */
                            readOnly?: boolean;
                            /** @description It may delete or overwrite data (e.g. HTTP DELETE) */
                            destructive?: boolean;
                            /** @description Repeating a call has no further effect (PUT, DELETE) */
                            idempotent?: boolean;
                            /** @description It reaches a service outside the host */
                            openWorld?: boolean;
                        };
                        /** @description allow: calls run; ask: a call from code waits for an operator's approval; deny: calls are refused */
                        policy: "allow" | "ask" | "deny";
                        /** @description Present when calls cannot authenticate yet: the service secrets the tool needs, as alternatives (one alternative's names all set is enough), none of which is set. Calls fail until an operator sets one (PATCH /services/{id}/secrets) */
                        missingSecrets?: string[][];
                        inputSchema: {
                            [key: string]: unknown;
                        };
                        outputSchema: {
                            [key: string]: unknown;
                        };
                        /** @description On a single tool's answer: the operator's override of its input constraints (inputSchema is the patched one), or null when the schema is the document's */
                        inputOverride?: {
                            patch: {
                                [key: string]: unknown;
                            };
                            reason: string;
                            /** @description The key's name (or "the host's API key") */
                            setBy: string;
                            /** Format: date-time */
                            setAt: string;
                            /** @description The input schema the adapter made from the API's document, before the patch */
                            documentInputSchema: unknown;
                        } | null;
                    };
                };
            };
            /** @description bad_request, validation_failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description cross_site_refused, forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description issuer_unavailable, shutting_down, database_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_storage */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    setServiceToolsEnabled: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    enabled: boolean;
                    /** @description Only these tools (each must exist, else nothing changes: 404) */
                    toolIds?: string[];
                    /** @description Only tools annotated destructive (true) or not (false); combines with toolIds (both must hold) */
                    destructive?: boolean;
                };
            };
        };
        responses: {
            /** @description How many tools were selected and changed */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        enabled: boolean;
                        /** @description Tools the request selected */
                        matched: number;
                        /** @description Of those, the ones whose flag changed (the rest had it already) */
                        changed: number;
                    };
                };
            };
            /** @description bad_request, validation_failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description cross_site_refused, forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description issuer_unavailable, shutting_down, database_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_storage */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    invokeTool: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                serviceId: string;
                toolId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    parameters?: {
                        [key: string]: unknown;
                    };
                    /** @description true: `result` is `{status, headers, body}`, the response's status and headers as far as the adapter has them (openapi: both; `null` and `{}` otherwise), `set-cookie` dropped */
                    withResponse?: boolean;
                };
            };
        };
        responses: {
            /** @description What the adapter returned */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        result: unknown;
                    };
                };
            };
            /** @description bad_request, validation_failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description tool_denied, approval_required, connection_required, cross_site_refused */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description service_disabled, tool_disabled */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description adapter_error, upstream_error */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description issuer_unavailable, shutting_down, database_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description invoke_timeout */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_storage */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getServicePolicy: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The policy */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description allow: calls run; ask: a call from code waits for an operator's approval; deny: calls are refused */
                        default: "allow" | "ask" | "deny";
                        /** @description The first rule that matches a tool decides; else `default` */
                        rules: {
                            /** @description Tool ids this rule covers: `*` is any run of characters, `?` one character, the rest itself (case-sensitive, the whole id). Absent: every tool. May name tools the service does not have */
                            tools?: string;
                            /** @description Only tools whose readOnly annotation is this (absent = false) */
                            readOnly?: boolean;
                            /** @description Only tools whose destructive annotation is this (absent = false) */
                            destructive?: boolean;
                            /** @description allow: calls run; ask: a call from code waits for an operator's approval; deny: calls are refused */
                            action: "allow" | "ask" | "deny";
                        }[];
                        /** @description How long a call of this service waits for an operator's decision before its approval expires, in ms; null: the host's CYRNEL_APPROVAL_TIMEOUT_MS. A run that waits holds no sandbox after CYRNEL_SUSPEND_EVICT_MS, so this may be days */
                        approvalTimeoutMs: number | null;
                    };
                };
            };
            /** @description validation_failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description cross_site_refused, forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description issuer_unavailable, shutting_down, database_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_storage */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    setServicePolicy: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description allow: calls run; ask: a call from code waits for an operator's approval; deny: calls are refused */
                    default?: "allow" | "ask" | "deny";
                    rules?: {
                        /** @description Tool ids this rule covers: `*` is any run of characters, `?` one character, the rest itself (case-sensitive, the whole id). Absent: every tool. May name tools the service does not have */
                        tools?: string;
                        /** @description Only tools whose readOnly annotation is this (absent = false) */
                        readOnly?: boolean;
                        /** @description Only tools whose destructive annotation is this (absent = false) */
                        destructive?: boolean;
                        /** @description allow: calls run; ask: a call from code waits for an operator's approval; deny: calls are refused */
                        action: "allow" | "ask" | "deny";
                    }[];
                    /** @description How long its calls wait for a decision, in ms (at most about 24.8 days); null or absent: the host's */
                    approvalTimeoutMs?: number | null;
                };
            };
        };
        responses: {
            /** @description The policy now in force */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description allow: calls run; ask: a call from code waits for an operator's approval; deny: calls are refused */
                        default: "allow" | "ask" | "deny";
                        /** @description The first rule that matches a tool decides; else `default` */
                        rules: {
                            /** @description Tool ids this rule covers: `*` is any run of characters, `?` one character, the rest itself (case-sensitive, the whole id). Absent: every tool. May name tools the service does not have */
                            tools?: string;
                            /** @description Only tools whose readOnly annotation is this (absent = false) */
                            readOnly?: boolean;
                            /** @description Only tools whose destructive annotation is this (absent = false) */
                            destructive?: boolean;
                            /** @description allow: calls run; ask: a call from code waits for an operator's approval; deny: calls are refused */
                            action: "allow" | "ask" | "deny";
                        }[];
                        /** @description How long a call of this service waits for an operator's decision before its approval expires, in ms; null: the host's CYRNEL_APPROVAL_TIMEOUT_MS. A run that waits holds no sandbox after CYRNEL_SUSPEND_EVICT_MS, so this may be days */
                        approvalTimeoutMs: number | null;
                    };
                };
            };
            /** @description bad_request, validation_failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description cross_site_refused, forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description issuer_unavailable, shutting_down, database_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_storage */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listModules: {
        parameters: {
            query?: {
                type?: "adapter" | "environment";
                enabled?: boolean;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Every module (never paginated) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            id: string;
                            name: string;
                            description: string;
                            /** @description null only for a custom module whose module.json cannot be read */
                            type: "adapter" | "environment" | null;
                            version: string | null;
                            builtin: boolean;
                            /** @description The operator's choice (persisted) */
                            enabled: boolean;
                            /** @description Set up and serving right now */
                            active: boolean;
                            /** @description Known to the database but its folder is gone */
                            missing: boolean;
                            /** @description Its code stopped the host or never finished loading, so it is not run again until its files change (`error` says which) */
                            quarantined: boolean;
                            source: string | null;
                            /** @description Why the module failed to load or start */
                            error: string | null;
                        }[];
                        nextCursor: string | null;
                    };
                };
            };
            /** @description validation_failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description cross_site_refused, forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description issuer_unavailable, shutting_down, database_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_storage */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getModule: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The module */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        name: string;
                        description: string;
                        /** @description null only for a custom module whose module.json cannot be read */
                        type: "adapter" | "environment" | null;
                        version: string | null;
                        builtin: boolean;
                        /** @description The operator's choice (persisted) */
                        enabled: boolean;
                        /** @description Set up and serving right now */
                        active: boolean;
                        /** @description Known to the database but its folder is gone */
                        missing: boolean;
                        /** @description Its code stopped the host or never finished loading, so it is not run again until its files change (`error` says which) */
                        quarantined: boolean;
                        source: string | null;
                        /** @description Why the module failed to load or start */
                        error: string | null;
                        configSchema: {
                            [key: string]: unknown;
                        };
                        secretsSchema: {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description validation_failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description cross_site_refused, forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description issuer_unavailable, shutting_down, database_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_storage */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteModule: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description bad_request, validation_failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description cross_site_refused, forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description issuer_unavailable, shutting_down, database_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_storage */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    updateModuleFromUrl: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description http(s) URL of a module .tgz (module.json at the root or under package/) */
                    url: string;
                };
            };
        };
        responses: {
            /** @description Update result */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        /** @description false when the archive holds exactly the installed files */
                        updated: boolean;
                        fromVersion: string | null;
                        /** @description The version now installed (the previous one when nothing changed) */
                        toVersion: string | null;
                    };
                };
            };
            /** @description bad_request, validation_failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description cross_site_refused, forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description issuer_unavailable, shutting_down, database_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_storage */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    setModuleEnabled: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    enabled: boolean;
                };
            };
        };
        responses: {
            /** @description The module */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        name: string;
                        description: string;
                        /** @description null only for a custom module whose module.json cannot be read */
                        type: "adapter" | "environment" | null;
                        version: string | null;
                        builtin: boolean;
                        /** @description The operator's choice (persisted) */
                        enabled: boolean;
                        /** @description Set up and serving right now */
                        active: boolean;
                        /** @description Known to the database but its folder is gone */
                        missing: boolean;
                        /** @description Its code stopped the host or never finished loading, so it is not run again until its files change (`error` says which) */
                        quarantined: boolean;
                        source: string | null;
                        /** @description Why the module failed to load or start */
                        error: string | null;
                        configSchema: {
                            [key: string]: unknown;
                        };
                        secretsSchema: {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description bad_request, validation_failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description cross_site_refused, forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description adapter_error */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description issuer_unavailable, shutting_down, database_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_storage */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getModuleConfig: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The config */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        config: {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description validation_failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description cross_site_refused, forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description issuer_unavailable, shutting_down, database_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_storage */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    patchModuleConfig: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    [key: string]: unknown;
                } | {
                    /** @description add, remove, replace, move, copy or test */
                    op: string;
                    path: string;
                    from?: string;
                    value?: unknown;
                }[];
            };
        };
        responses: {
            /** @description The new config */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        config: {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description bad_request, validation_failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description cross_site_refused, forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description adapter_error */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description issuer_unavailable, shutting_down, database_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_storage */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getModuleSecrets: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Secret names */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Names of the secrets that have a value (never the values) */
                        set: string[];
                    };
                };
            };
            /** @description validation_failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description cross_site_refused, forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description issuer_unavailable, shutting_down, database_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_storage */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    patchModuleSecrets: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    [key: string]: unknown;
                } | {
                    /** @description add, remove, replace, move, copy or test */
                    op: string;
                    path: string;
                    from?: string;
                    value?: unknown;
                }[];
            };
        };
        responses: {
            /** @description Secret names */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Names of the secrets that have a value (never the values) */
                        set: string[];
                    };
                };
            };
            /** @description bad_request, validation_failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description cross_site_refused, forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description adapter_error */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description issuer_unavailable, shutting_down, database_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_storage */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    reloadModules: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Every module after the rescan */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            id: string;
                            name: string;
                            description: string;
                            /** @description null only for a custom module whose module.json cannot be read */
                            type: "adapter" | "environment" | null;
                            version: string | null;
                            builtin: boolean;
                            /** @description The operator's choice (persisted) */
                            enabled: boolean;
                            /** @description Set up and serving right now */
                            active: boolean;
                            /** @description Known to the database but its folder is gone */
                            missing: boolean;
                            /** @description Its code stopped the host or never finished loading, so it is not run again until its files change (`error` says which) */
                            quarantined: boolean;
                            source: string | null;
                            /** @description Why the module failed to load or start */
                            error: string | null;
                        }[];
                        nextCursor: string | null;
                    };
                };
            };
            /** @description bad_request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description cross_site_refused, forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description issuer_unavailable, shutting_down, database_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_storage */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    installModuleFromRegistry: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Descriptor URL (a modules index item's `source`) */
                    source: string;
                    /** @description Exact version, semver range, or omitted for the descriptor's latestVersion */
                    version?: string;
                };
            };
        };
        responses: {
            /** @description Installed (disabled) */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        name: string;
                        description: string;
                        /** @description null only for a custom module whose module.json cannot be read */
                        type: "adapter" | "environment" | null;
                        version: string | null;
                        builtin: boolean;
                        /** @description The operator's choice (persisted) */
                        enabled: boolean;
                        /** @description Set up and serving right now */
                        active: boolean;
                        /** @description Known to the database but its folder is gone */
                        missing: boolean;
                        /** @description Its code stopped the host or never finished loading, so it is not run again until its files change (`error` says which) */
                        quarantined: boolean;
                        source: string | null;
                        /** @description Why the module failed to load or start */
                        error: string | null;
                        configSchema: {
                            [key: string]: unknown;
                        };
                        secretsSchema: {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description bad_request, validation_failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description cross_site_refused, forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description upstream_error */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description issuer_unavailable, shutting_down, database_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_storage */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    updateModuleFromRegistry: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Exact version, semver range, or omitted for the descriptor's latestVersion */
                    version?: string;
                };
            };
        };
        responses: {
            /** @description Update result */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        /** @description false when the archive holds exactly the installed files */
                        updated: boolean;
                        fromVersion: string | null;
                        /** @description The version now installed (the previous one when nothing changed) */
                        toVersion: string | null;
                    };
                };
            };
            /** @description bad_request, validation_failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description cross_site_refused, forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description upstream_error */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description issuer_unavailable, shutting_down, database_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_storage */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listRegistries: {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of registries */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            /** @description Registry id (lowercase letters, digits, `.`, `_`, `-`) */
                            id: string;
                            name: string;
                            /** @description Base URL; the well-known document is `<url>.well-known/cyrnel-registry.json` */
                            url: string;
                            /** @description Absolute URL of the definitions index; null when the registry publishes none */
                            definitionsUrl: string | null;
                            /** @description Absolute URL of the modules index; null when the registry publishes none */
                            modulesUrl: string | null;
                            /** Format: date-time */
                            createdAt: string;
                            /** Format: date-time */
                            updatedAt: string;
                        }[];
                        nextCursor: string | null;
                    };
                };
            };
            /** @description bad_request, validation_failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description cross_site_refused, forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description issuer_unavailable, shutting_down, database_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_storage */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    addRegistry: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Base URL of the registry (or the URL of its `.well-known/cyrnel-registry.json` itself) */
                    url: string;
                    /** @description Local id; defaults to the id in the registry's document */
                    id?: string;
                };
            };
        };
        responses: {
            /** @description Added */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Registry id (lowercase letters, digits, `.`, `_`, `-`) */
                        id: string;
                        name: string;
                        /** @description Base URL; the well-known document is `<url>.well-known/cyrnel-registry.json` */
                        url: string;
                        /** @description Absolute URL of the definitions index; null when the registry publishes none */
                        definitionsUrl: string | null;
                        /** @description Absolute URL of the modules index; null when the registry publishes none */
                        modulesUrl: string | null;
                        /** Format: date-time */
                        createdAt: string;
                        /** Format: date-time */
                        updatedAt: string;
                    };
                };
            };
            /** @description bad_request, validation_failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description cross_site_refused, forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description upstream_error */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description issuer_unavailable, shutting_down, database_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_storage */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getRegistry: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The registry */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Registry id (lowercase letters, digits, `.`, `_`, `-`) */
                        id: string;
                        name: string;
                        /** @description Base URL; the well-known document is `<url>.well-known/cyrnel-registry.json` */
                        url: string;
                        /** @description Absolute URL of the definitions index; null when the registry publishes none */
                        definitionsUrl: string | null;
                        /** @description Absolute URL of the modules index; null when the registry publishes none */
                        modulesUrl: string | null;
                        /** Format: date-time */
                        createdAt: string;
                        /** Format: date-time */
                        updatedAt: string;
                    };
                };
            };
            /** @description validation_failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description cross_site_refused, forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description issuer_unavailable, shutting_down, database_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_storage */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteRegistry: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description validation_failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description cross_site_refused, forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description issuer_unavailable, shutting_down, database_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_storage */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    browseRegistryDefinitions: {
        parameters: {
            query?: {
                query?: string;
                limit?: number;
                cursor?: string;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of index items */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            id: string;
                            name: string;
                            description: string;
                            /** @description What the entry is, e.g. "openapi@3" */
                            kind: string | null;
                            /** @description Absolute descriptor URL: pass it as `source` to install */
                            source: string;
                        }[];
                        nextCursor: string | null;
                    };
                };
            };
            /** @description bad_request, validation_failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description cross_site_refused, forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description upstream_error */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description issuer_unavailable, shutting_down, database_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_storage */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    browseRegistryModules: {
        parameters: {
            query?: {
                query?: string;
                limit?: number;
                cursor?: string;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of index items */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            id: string;
                            name: string;
                            description: string;
                            /** @description What the entry is, e.g. "openapi@3" */
                            kind: string | null;
                            /** @description Absolute descriptor URL: pass it as `source` to install */
                            source: string;
                        }[];
                        nextCursor: string | null;
                    };
                };
            };
            /** @description bad_request, validation_failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description cross_site_refused, forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description upstream_error */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description issuer_unavailable, shutting_down, database_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_storage */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listProcesses: {
        parameters: {
            query?: {
                keyId?: string;
                state?: "queued" | "running" | "suspended" | "idle" | "terminating";
                exitState?: "success" | "failed" | "timeout" | "canceled";
                ref?: string;
                refPrefix?: string;
                since?: string;
                until?: string;
                order?: "newest" | "oldest";
                limit?: number;
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of processes */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            id: number;
                            ref: string | null;
                            state: "queued" | "running" | "suspended" | "idle" | "terminating";
                            /** @description null until a run ends */
                            exitState: ("success" | "failed" | "timeout" | "canceled") | null;
                            /** @description Why the run did not succeed (compiler message, uncaught error, timeout) */
                            error: string | null;
                            timeoutMs: number | null;
                            /** @description The stored API key that created the process, or `oauth:<sub>` when an OAuth access token did (an agent sees only its own); null for CYRNEL_API_KEY */
                            keyId: string | null;
                            /** Format: date-time */
                            createdAt: string;
                            startedAt: string | null;
                            finishedAt: string | null;
                            /** @description Approvals a tool call of the process waits for; while any is pending the state is suspended */
                            pendingApprovalIds: number[];
                        }[];
                        nextCursor: string | null;
                    };
                };
            };
            /** @description bad_request, validation_failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description cross_site_refused */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description issuer_unavailable, shutting_down, database_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_storage */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createProcess: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description TypeScript source (≤ 100 KiB) */
                    code: string;
                    /** @description Optional label, trimmed, non-empty */
                    ref?: string;
                    /** @description Milliseconds the code may run once it runs, and may wait in the queue before that. Default 30000; at most 2147483647 (about 24.8 days); null = no limit */
                    timeoutMs?: number | null;
                    block?: boolean;
                    /** @description Type-check the code against the types of the services it can reach before it runs; on errors the run ends `failed` with `error` listing them, and nothing runs. Default: the environment's (on for typescript-ivm); `true` on an environment that cannot check is a 400. */
                    typecheck?: boolean;
                };
            };
        };
        responses: {
            /** @description The process (with results when blocking) */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        ref: string | null;
                        state: "queued" | "running" | "suspended" | "idle" | "terminating";
                        /** @description null until a run ends */
                        exitState: ("success" | "failed" | "timeout" | "canceled") | null;
                        /** @description Why the run did not succeed (compiler message, uncaught error, timeout) */
                        error: string | null;
                        timeoutMs: number | null;
                        /** @description The stored API key that created the process, or `oauth:<sub>` when an OAuth access token did (an agent sees only its own); null for CYRNEL_API_KEY */
                        keyId: string | null;
                        /** Format: date-time */
                        createdAt: string;
                        startedAt: string | null;
                        finishedAt: string | null;
                        /** @description Approvals a tool call of the process waits for; while any is pending the state is suspended */
                        pendingApprovalIds: number[];
                        /** @description Everything passed to cyrnel.output(...), shallow-merged */
                        output: {
                            [key: string]: unknown;
                        };
                        /** @description console.log/info/debug */
                        stdout: string;
                        /** @description console.warn/error */
                        stderr: string;
                        calls: {
                            /** @description Tool calls the run made */
                            count: number;
                            /** @description Calls that did not end ok (refused ones included) */
                            failed: number;
                            /** @description Per `serviceId.toolId` */
                            byTool: {
                                [key: string]: {
                                    count: number;
                                    failed: number;
                                };
                            };
                        };
                    } | {
                        id: number;
                        ref: string | null;
                        state: "queued" | "running" | "suspended" | "idle" | "terminating";
                        /** @description null until a run ends */
                        exitState: ("success" | "failed" | "timeout" | "canceled") | null;
                        /** @description Why the run did not succeed (compiler message, uncaught error, timeout) */
                        error: string | null;
                        timeoutMs: number | null;
                        /** @description The stored API key that created the process, or `oauth:<sub>` when an OAuth access token did (an agent sees only its own); null for CYRNEL_API_KEY */
                        keyId: string | null;
                        /** Format: date-time */
                        createdAt: string;
                        startedAt: string | null;
                        finishedAt: string | null;
                        /** @description Approvals a tool call of the process waits for; while any is pending the state is suspended */
                        pendingApprovalIds: number[];
                    };
                };
            };
            /** @description bad_request, validation_failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description cross_site_refused */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description at_capacity, rate_limited */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description no_environment, issuer_unavailable, shutting_down, database_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_storage */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    pruneProcesses: {
        parameters: {
            query: {
                finishedBefore: string;
                exitState?: "success" | "failed" | "timeout" | "canceled";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description How many processes were deleted */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        deleted: number;
                    };
                };
            };
            /** @description bad_request, validation_failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description cross_site_refused, forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description issuer_unavailable, shutting_down, database_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_storage */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getProcess: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The process */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        ref: string | null;
                        state: "queued" | "running" | "suspended" | "idle" | "terminating";
                        /** @description null until a run ends */
                        exitState: ("success" | "failed" | "timeout" | "canceled") | null;
                        /** @description Why the run did not succeed (compiler message, uncaught error, timeout) */
                        error: string | null;
                        timeoutMs: number | null;
                        /** @description The stored API key that created the process, or `oauth:<sub>` when an OAuth access token did (an agent sees only its own); null for CYRNEL_API_KEY */
                        keyId: string | null;
                        /** Format: date-time */
                        createdAt: string;
                        startedAt: string | null;
                        finishedAt: string | null;
                        /** @description Approvals a tool call of the process waits for; while any is pending the state is suspended */
                        pendingApprovalIds: number[];
                    };
                };
            };
            /** @description validation_failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description cross_site_refused */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description issuer_unavailable, shutting_down, database_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_storage */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteProcess: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description validation_failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description cross_site_refused */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description issuer_unavailable, shutting_down, database_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_storage */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getProcessCode: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Source */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain; charset=utf-8": string;
                };
            };
            /** @description validation_failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description cross_site_refused */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description issuer_unavailable, shutting_down, database_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_storage */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getProcessOutput: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Output */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description validation_failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description cross_site_refused */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description issuer_unavailable, shutting_down, database_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_storage */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getProcessStdout: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description stdout */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain; charset=utf-8": string;
                };
            };
            /** @description validation_failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description cross_site_refused */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description issuer_unavailable, shutting_down, database_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_storage */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getProcessStderr: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description stderr */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain; charset=utf-8": string;
                };
            };
            /** @description validation_failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description cross_site_refused */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description issuer_unavailable, shutting_down, database_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_storage */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getProcessResults: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The process and its bounded results */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        ref: string | null;
                        state: "queued" | "running" | "suspended" | "idle" | "terminating";
                        /** @description null until a run ends */
                        exitState: ("success" | "failed" | "timeout" | "canceled") | null;
                        /** @description Why the run did not succeed (compiler message, uncaught error, timeout) */
                        error: string | null;
                        timeoutMs: number | null;
                        /** @description The stored API key that created the process, or `oauth:<sub>` when an OAuth access token did (an agent sees only its own); null for CYRNEL_API_KEY */
                        keyId: string | null;
                        /** Format: date-time */
                        createdAt: string;
                        startedAt: string | null;
                        finishedAt: string | null;
                        /** @description Approvals a tool call of the process waits for; while any is pending the state is suspended */
                        pendingApprovalIds: number[];
                        output: {
                            [key: string]: unknown;
                        } | string;
                        stdout: string;
                        stderr: string;
                        /** @description The texts shown with their middle cut; empty when all fit */
                        cut: {
                            /** @description stdout, stderr, output (its compact JSON) or error */
                            stream: "stdout" | "stderr" | "output" | "error";
                            /** @description Length of the whole text */
                            totalChars: number;
                            /** @description Characters shown from the start: the offset to read on from */
                            headChars: number;
                            /** @description Characters shown from the end */
                            tailChars: number;
                        }[];
                        calls: {
                            /** @description Tool calls the run made */
                            count: number;
                            /** @description Calls that did not end ok (refused ones included) */
                            failed: number;
                            /** @description Per `serviceId.toolId` */
                            byTool: {
                                [key: string]: {
                                    count: number;
                                    failed: number;
                                };
                            };
                        };
                    };
                };
            };
            /** @description validation_failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description cross_site_refused */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description issuer_unavailable, shutting_down, database_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_storage */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getProcessText: {
        parameters: {
            query: {
                stream: "stdout" | "stderr" | "output" | "error";
                offset?: number;
                limit?: number;
            };
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The page */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description stdout, stderr, output (its compact JSON) or error */
                        stream: "stdout" | "stderr" | "output" | "error";
                        /** @description Where this page starts */
                        offset: number;
                        totalChars: number;
                        text: string;
                        /** @description Where the next page starts; null at the end */
                        nextOffset: number | null;
                    };
                };
            };
            /** @description bad_request, validation_failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description cross_site_refused */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description issuer_unavailable, shutting_down, database_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_storage */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    followProcess: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description NDJSON events, one per line */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/x-ndjson": {
                        type: "stdout" | "stderr";
                        text: string;
                    } | {
                        /** @constant */
                        type: "call";
                        id: number;
                        /** @description null for a direct invoke */
                        processId: number | null;
                        /** @description The stored key that made the call, or `oauth:<sub>` for an OAuth access token; null for the bootstrap key */
                        keyId: string | null;
                        serviceId: string;
                        toolId: string;
                        /** Format: date-time */
                        startedAt: string;
                        /** @description From the call to its end, a wait for approval included */
                        durationMs: number;
                        /** @description `ok`, or the error code the caller got (not_found, tool_denied, …) */
                        outcome: string;
                        /** @description The end service's HTTP status, when the adapter reported one */
                        status: number | null;
                        /** @description The connected account (`/services/{id}/connections`) whose access token the call carried */
                        connectionId: string | null;
                        /** @description A preview: the parameters with secret values masked, when their JSON is at most 2048 characters; else a string with the start of that JSON, marked as cut */
                        parameters: unknown;
                    } | {
                        /** @constant */
                        type: "approval";
                        id: number;
                        processId: number;
                        /** @description The key the process was created with, or `oauth:<sub>` for an OAuth access token; null for the bootstrap key */
                        keyId: string | null;
                        serviceId: string;
                        toolId: string;
                        /** @description The size of the whole parameters' JSON text (as `GET /approvals/{id}` has it), in UTF-8 bytes */
                        parametersBytes: number;
                        /** @description SHA-256 (hex) of that JSON text: `sha256(JSON.stringify(parameters))` of the whole parameters, to tell that what was read in full is what is decided */
                        parametersSha256: string;
                        state: "pending" | "approved" | "denied" | "expired";
                        /** Format: date-time */
                        createdAt: string;
                        decidedAt: string | null;
                        /** @description The deciding key's id; null for the bootstrap key, no auth, and expiries */
                        decidedBy: string | null;
                        /** @description The operator's reason, or why the approval expired */
                        reason: string | null;
                        /** @description What the operator is asked when it is not the policy's usual question: a call that was in flight when the host running its process stopped asks whether to send it again (it may have reached the service); null: the usual (the service's policy asks for every call) */
                        question: string | null;
                        /** @description The run that asked (a resumed run finds its approval again) */
                        executionId: number | null;
                        /** @description The call of that run that asked, by issue order from 0 */
                        callIndex: number | null;
                        /** @description A preview: the call's parameters (secret values replaced by [redacted]) when their JSON is at most 2048 characters; else a string with the start of that JSON, ending with `… [cut: N more characters]` (parameters are always an object, so a string means cut). `GET /approvals/{id}` has them whole */
                        parameters: unknown;
                    } | {
                        /** @constant */
                        type: "end";
                        process: {
                            id: number;
                            ref: string | null;
                            state: "queued" | "running" | "suspended" | "idle" | "terminating";
                            /** @description null until a run ends */
                            exitState: ("success" | "failed" | "timeout" | "canceled") | null;
                            /** @description Why the run did not succeed (compiler message, uncaught error, timeout) */
                            error: string | null;
                            timeoutMs: number | null;
                            /** @description The stored API key that created the process, or `oauth:<sub>` when an OAuth access token did (an agent sees only its own); null for CYRNEL_API_KEY */
                            keyId: string | null;
                            /** Format: date-time */
                            createdAt: string;
                            startedAt: string | null;
                            finishedAt: string | null;
                            /** @description Approvals a tool call of the process waits for; while any is pending the state is suspended */
                            pendingApprovalIds: number[];
                            /** @description Everything passed to cyrnel.output(...), shallow-merged */
                            output: {
                                [key: string]: unknown;
                            };
                            /** @description console.log/info/debug */
                            stdout: string;
                            /** @description console.warn/error */
                            stderr: string;
                            calls: {
                                /** @description Tool calls the run made */
                                count: number;
                                /** @description Calls that did not end ok (refused ones included) */
                                failed: number;
                                /** @description Per `serviceId.toolId` */
                                byTool: {
                                    [key: string]: {
                                        count: number;
                                        failed: number;
                                    };
                                };
                            };
                        };
                    };
                };
            };
            /** @description validation_failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description cross_site_refused */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description too_many_followers, rate_limited */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description issuer_unavailable, shutting_down, database_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_storage */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    runProcess: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    force?: boolean;
                    block?: boolean;
                    /** @description Type-check the code against the types of the services it can reach before it runs; on errors the run ends `failed` with `error` listing them, and nothing runs. Default: the environment's (on for typescript-ivm); `true` on an environment that cannot check is a 400. */
                    typecheck?: boolean;
                };
            };
        };
        responses: {
            /** @description The process */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        ref: string | null;
                        state: "queued" | "running" | "suspended" | "idle" | "terminating";
                        /** @description null until a run ends */
                        exitState: ("success" | "failed" | "timeout" | "canceled") | null;
                        /** @description Why the run did not succeed (compiler message, uncaught error, timeout) */
                        error: string | null;
                        timeoutMs: number | null;
                        /** @description The stored API key that created the process, or `oauth:<sub>` when an OAuth access token did (an agent sees only its own); null for CYRNEL_API_KEY */
                        keyId: string | null;
                        /** Format: date-time */
                        createdAt: string;
                        startedAt: string | null;
                        finishedAt: string | null;
                        /** @description Approvals a tool call of the process waits for; while any is pending the state is suspended */
                        pendingApprovalIds: number[];
                        /** @description Everything passed to cyrnel.output(...), shallow-merged */
                        output: {
                            [key: string]: unknown;
                        };
                        /** @description console.log/info/debug */
                        stdout: string;
                        /** @description console.warn/error */
                        stderr: string;
                        calls: {
                            /** @description Tool calls the run made */
                            count: number;
                            /** @description Calls that did not end ok (refused ones included) */
                            failed: number;
                            /** @description Per `serviceId.toolId` */
                            byTool: {
                                [key: string]: {
                                    count: number;
                                    failed: number;
                                };
                            };
                        };
                    } | {
                        id: number;
                        ref: string | null;
                        state: "queued" | "running" | "suspended" | "idle" | "terminating";
                        /** @description null until a run ends */
                        exitState: ("success" | "failed" | "timeout" | "canceled") | null;
                        /** @description Why the run did not succeed (compiler message, uncaught error, timeout) */
                        error: string | null;
                        timeoutMs: number | null;
                        /** @description The stored API key that created the process, or `oauth:<sub>` when an OAuth access token did (an agent sees only its own); null for CYRNEL_API_KEY */
                        keyId: string | null;
                        /** Format: date-time */
                        createdAt: string;
                        startedAt: string | null;
                        finishedAt: string | null;
                        /** @description Approvals a tool call of the process waits for; while any is pending the state is suspended */
                        pendingApprovalIds: number[];
                    };
                };
            };
            /** @description bad_request, validation_failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description cross_site_refused */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description at_capacity, rate_limited */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description no_environment, issuer_unavailable, shutting_down, database_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_storage */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    killProcess: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The process, idle */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        ref: string | null;
                        state: "queued" | "running" | "suspended" | "idle" | "terminating";
                        /** @description null until a run ends */
                        exitState: ("success" | "failed" | "timeout" | "canceled") | null;
                        /** @description Why the run did not succeed (compiler message, uncaught error, timeout) */
                        error: string | null;
                        timeoutMs: number | null;
                        /** @description The stored API key that created the process, or `oauth:<sub>` when an OAuth access token did (an agent sees only its own); null for CYRNEL_API_KEY */
                        keyId: string | null;
                        /** Format: date-time */
                        createdAt: string;
                        startedAt: string | null;
                        finishedAt: string | null;
                        /** @description Approvals a tool call of the process waits for; while any is pending the state is suspended */
                        pendingApprovalIds: number[];
                    };
                };
            };
            /** @description validation_failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description cross_site_refused */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description issuer_unavailable, shutting_down, database_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_storage */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listApprovals: {
        parameters: {
            query?: {
                state?: "pending" | "approved" | "denied" | "expired";
                processId?: number;
                serviceId?: string;
                toolId?: string;
                keyId?: string;
                limit?: number;
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of approvals */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            id: number;
                            processId: number;
                            /** @description The key the process was created with, or `oauth:<sub>` for an OAuth access token; null for the bootstrap key */
                            keyId: string | null;
                            serviceId: string;
                            toolId: string;
                            /** @description The size of the whole parameters' JSON text (as `GET /approvals/{id}` has it), in UTF-8 bytes */
                            parametersBytes: number;
                            /** @description SHA-256 (hex) of that JSON text: `sha256(JSON.stringify(parameters))` of the whole parameters, to tell that what was read in full is what is decided */
                            parametersSha256: string;
                            state: "pending" | "approved" | "denied" | "expired";
                            /** Format: date-time */
                            createdAt: string;
                            decidedAt: string | null;
                            /** @description The deciding key's id; null for the bootstrap key, no auth, and expiries */
                            decidedBy: string | null;
                            /** @description The operator's reason, or why the approval expired */
                            reason: string | null;
                            /** @description What the operator is asked when it is not the policy's usual question: a call that was in flight when the host running its process stopped asks whether to send it again (it may have reached the service); null: the usual (the service's policy asks for every call) */
                            question: string | null;
                            /** @description The run that asked (a resumed run finds its approval again) */
                            executionId: number | null;
                            /** @description The call of that run that asked, by issue order from 0 */
                            callIndex: number | null;
                            /** @description A preview: the call's parameters (secret values replaced by [redacted]) when their JSON is at most 2048 characters; else a string with the start of that JSON, ending with `… [cut: N more characters]` (parameters are always an object, so a string means cut). `GET /approvals/{id}` has them whole */
                            parameters: unknown;
                            /** @description A pending approval: when it expires undecided (its creation plus the answering host's CYRNEL_APPROVAL_TIMEOUT_MS); null once decided */
                            expiresAt: string | null;
                            /** @description The tool's annotations now (`destructive`, …); null when the tool is gone */
                            toolAnnotations: {
                                /** @description Calling it changes nothing (e.g. HTTP GET) */
                                readOnly?: boolean;
                                /** @description It may delete or overwrite data (e.g. HTTP DELETE) */
                                destructive?: boolean;
                                /** @description Repeating a call has no further effect (PUT, DELETE) */
                                idempotent?: boolean;
                                /** @description It reaches a service outside the host */
                                openWorld?: boolean;
                            } | null;
                        }[];
                        nextCursor: string | null;
                    };
                };
            };
            /** @description bad_request, validation_failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description cross_site_refused */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description issuer_unavailable, shutting_down, database_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_storage */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getApproval: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The approval */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        processId: number;
                        /** @description The key the process was created with, or `oauth:<sub>` for an OAuth access token; null for the bootstrap key */
                        keyId: string | null;
                        serviceId: string;
                        toolId: string;
                        /** @description The size of the whole parameters' JSON text (as `GET /approvals/{id}` has it), in UTF-8 bytes */
                        parametersBytes: number;
                        /** @description SHA-256 (hex) of that JSON text: `sha256(JSON.stringify(parameters))` of the whole parameters, to tell that what was read in full is what is decided */
                        parametersSha256: string;
                        state: "pending" | "approved" | "denied" | "expired";
                        /** Format: date-time */
                        createdAt: string;
                        decidedAt: string | null;
                        /** @description The deciding key's id; null for the bootstrap key, no auth, and expiries */
                        decidedBy: string | null;
                        /** @description The operator's reason, or why the approval expired */
                        reason: string | null;
                        /** @description What the operator is asked when it is not the policy's usual question: a call that was in flight when the host running its process stopped asks whether to send it again (it may have reached the service); null: the usual (the service's policy asks for every call) */
                        question: string | null;
                        /** @description The run that asked (a resumed run finds its approval again) */
                        executionId: number | null;
                        /** @description The call of that run that asked, by issue order from 0 */
                        callIndex: number | null;
                        /** @description The call's parameters, whole, with the service's secret values replaced by [redacted] */
                        parameters: {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description validation_failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description cross_site_refused */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description issuer_unavailable, shutting_down, database_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_storage */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    approveApproval: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Shown to the code (denials) and kept */
                    reason?: string;
                };
            };
        };
        responses: {
            /** @description The decided approval (parameters as a preview) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        processId: number;
                        /** @description The key the process was created with, or `oauth:<sub>` for an OAuth access token; null for the bootstrap key */
                        keyId: string | null;
                        serviceId: string;
                        toolId: string;
                        /** @description The size of the whole parameters' JSON text (as `GET /approvals/{id}` has it), in UTF-8 bytes */
                        parametersBytes: number;
                        /** @description SHA-256 (hex) of that JSON text: `sha256(JSON.stringify(parameters))` of the whole parameters, to tell that what was read in full is what is decided */
                        parametersSha256: string;
                        state: "pending" | "approved" | "denied" | "expired";
                        /** Format: date-time */
                        createdAt: string;
                        decidedAt: string | null;
                        /** @description The deciding key's id; null for the bootstrap key, no auth, and expiries */
                        decidedBy: string | null;
                        /** @description The operator's reason, or why the approval expired */
                        reason: string | null;
                        /** @description What the operator is asked when it is not the policy's usual question: a call that was in flight when the host running its process stopped asks whether to send it again (it may have reached the service); null: the usual (the service's policy asks for every call) */
                        question: string | null;
                        /** @description The run that asked (a resumed run finds its approval again) */
                        executionId: number | null;
                        /** @description The call of that run that asked, by issue order from 0 */
                        callIndex: number | null;
                        /** @description A preview: the call's parameters (secret values replaced by [redacted]) when their JSON is at most 2048 characters; else a string with the start of that JSON, ending with `… [cut: N more characters]` (parameters are always an object, so a string means cut). `GET /approvals/{id}` has them whole */
                        parameters: unknown;
                    };
                };
            };
            /** @description validation_failed, bad_request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description cross_site_refused, forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description issuer_unavailable, shutting_down, database_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_storage */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    denyApproval: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Shown to the code (denials) and kept */
                    reason?: string;
                };
            };
        };
        responses: {
            /** @description The decided approval (parameters as a preview) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        processId: number;
                        /** @description The key the process was created with, or `oauth:<sub>` for an OAuth access token; null for the bootstrap key */
                        keyId: string | null;
                        serviceId: string;
                        toolId: string;
                        /** @description The size of the whole parameters' JSON text (as `GET /approvals/{id}` has it), in UTF-8 bytes */
                        parametersBytes: number;
                        /** @description SHA-256 (hex) of that JSON text: `sha256(JSON.stringify(parameters))` of the whole parameters, to tell that what was read in full is what is decided */
                        parametersSha256: string;
                        state: "pending" | "approved" | "denied" | "expired";
                        /** Format: date-time */
                        createdAt: string;
                        decidedAt: string | null;
                        /** @description The deciding key's id; null for the bootstrap key, no auth, and expiries */
                        decidedBy: string | null;
                        /** @description The operator's reason, or why the approval expired */
                        reason: string | null;
                        /** @description What the operator is asked when it is not the policy's usual question: a call that was in flight when the host running its process stopped asks whether to send it again (it may have reached the service); null: the usual (the service's policy asks for every call) */
                        question: string | null;
                        /** @description The run that asked (a resumed run finds its approval again) */
                        executionId: number | null;
                        /** @description The call of that run that asked, by issue order from 0 */
                        callIndex: number | null;
                        /** @description A preview: the call's parameters (secret values replaced by [redacted]) when their JSON is at most 2048 characters; else a string with the start of that JSON, ending with `… [cut: N more characters]` (parameters are always an object, so a string means cut). `GET /approvals/{id}` has them whole */
                        parameters: unknown;
                    };
                };
            };
            /** @description validation_failed, bad_request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description cross_site_refused, forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description issuer_unavailable, shutting_down, database_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_storage */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    decideApprovals: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    ids: number[];
                    decision: "approve" | "deny";
                    /** @description Shown to the code (denials) and kept */
                    reason?: string;
                };
            };
        };
        responses: {
            /** @description One result per id */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description One per distinct id, in the order given */
                        results: {
                            id: number;
                            /** @description The decided approval; null when it was not decided */
                            approval: {
                                id: number;
                                processId: number;
                                /** @description The key the process was created with, or `oauth:<sub>` for an OAuth access token; null for the bootstrap key */
                                keyId: string | null;
                                serviceId: string;
                                toolId: string;
                                /** @description The size of the whole parameters' JSON text (as `GET /approvals/{id}` has it), in UTF-8 bytes */
                                parametersBytes: number;
                                /** @description SHA-256 (hex) of that JSON text: `sha256(JSON.stringify(parameters))` of the whole parameters, to tell that what was read in full is what is decided */
                                parametersSha256: string;
                                state: "pending" | "approved" | "denied" | "expired";
                                /** Format: date-time */
                                createdAt: string;
                                decidedAt: string | null;
                                /** @description The deciding key's id; null for the bootstrap key, no auth, and expiries */
                                decidedBy: string | null;
                                /** @description The operator's reason, or why the approval expired */
                                reason: string | null;
                                /** @description What the operator is asked when it is not the policy's usual question: a call that was in flight when the host running its process stopped asks whether to send it again (it may have reached the service); null: the usual (the service's policy asks for every call) */
                                question: string | null;
                                /** @description The run that asked (a resumed run finds its approval again) */
                                executionId: number | null;
                                /** @description The call of that run that asked, by issue order from 0 */
                                callIndex: number | null;
                                /** @description A preview: the call's parameters (secret values replaced by [redacted]) when their JSON is at most 2048 characters; else a string with the start of that JSON, ending with `… [cut: N more characters]` (parameters are always an object, so a string means cut). `GET /approvals/{id}` has them whole */
                                parameters: unknown;
                            } | null;
                            /** @description Why it was not decided (`conflict`: already decided; `not_found`), as the single route says it */
                            error: {
                                code: string;
                                message: string;
                            } | null;
                        }[];
                        /** @description How many were decided */
                        decided: number;
                    };
                };
            };
            /** @description validation_failed, bad_request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description cross_site_refused, forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description issuer_unavailable, shutting_down, database_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_storage */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listCalls: {
        parameters: {
            query?: {
                serviceId?: string;
                toolId?: string;
                keyId?: string;
                processId?: number;
                outcome?: string;
                connectionId?: string;
                since?: string;
                until?: string;
                limit?: number;
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of call records */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            id: number;
                            /** @description null for a direct invoke */
                            processId: number | null;
                            /** @description The stored key that made the call, or `oauth:<sub>` for an OAuth access token; null for the bootstrap key */
                            keyId: string | null;
                            serviceId: string;
                            toolId: string;
                            /** Format: date-time */
                            startedAt: string;
                            /** @description From the call to its end, a wait for approval included */
                            durationMs: number;
                            /** @description `ok`, or the error code the caller got (not_found, tool_denied, …) */
                            outcome: string;
                            /** @description The end service's HTTP status, when the adapter reported one */
                            status: number | null;
                            /** @description The connected account (`/services/{id}/connections`) whose access token the call carried */
                            connectionId: string | null;
                            /** @description A preview: the parameters with secret values masked, when their JSON is at most 2048 characters; else a string with the start of that JSON, marked as cut */
                            parameters: unknown;
                        }[];
                        nextCursor: string | null;
                    };
                };
            };
            /** @description bad_request, validation_failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description cross_site_refused, forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description issuer_unavailable, shutting_down, database_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_storage */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listProcessCalls: {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
            };
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of call records */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            id: number;
                            /** @description null for a direct invoke */
                            processId: number | null;
                            /** @description The stored key that made the call, or `oauth:<sub>` for an OAuth access token; null for the bootstrap key */
                            keyId: string | null;
                            serviceId: string;
                            toolId: string;
                            /** Format: date-time */
                            startedAt: string;
                            /** @description From the call to its end, a wait for approval included */
                            durationMs: number;
                            /** @description `ok`, or the error code the caller got (not_found, tool_denied, …) */
                            outcome: string;
                            /** @description The end service's HTTP status, when the adapter reported one */
                            status: number | null;
                            /** @description The connected account (`/services/{id}/connections`) whose access token the call carried */
                            connectionId: string | null;
                            /** @description A preview: the parameters with secret values masked, when their JSON is at most 2048 characters; else a string with the start of that JSON, marked as cut */
                            parameters: unknown;
                        }[];
                        nextCursor: string | null;
                    };
                };
            };
            /** @description bad_request, validation_failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description cross_site_refused */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description issuer_unavailable, shutting_down, database_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_storage */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getEnvironmentDocs: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Markdown */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/markdown; charset=utf-8": string;
                };
            };
            /** @description unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description cross_site_refused */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description adapter_error */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description no_environment, issuer_unavailable, shutting_down, database_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description invoke_timeout */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_storage */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getEnvironmentTypes: {
        parameters: {
            query?: {
                serviceId?: string[];
                tool?: string[];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A .d.ts file (or an index) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain; charset=utf-8": string;
                };
            };
            /** @description bad_request, validation_failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description cross_site_refused */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description service_disabled, tool_disabled */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description types_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description adapter_error */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description no_environment, issuer_unavailable, shutting_down, database_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description invoke_timeout */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_storage */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listKeys: {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
                revoked?: boolean;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of keys */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            id: string;
                            name: string;
                            /** @description admin: every route; agent: discovery, processes of its own, tool calls and /mcp */
                            role: "admin" | "agent";
                            /** @description Agent keys only: the services the key may see and call (others look as if they did not exist); null = all */
                            services: string[] | null;
                            /** Format: date-time */
                            createdAt: string;
                            /** @description After this instant the key is refused (401); null = never */
                            expiresAt: string | null;
                            /** @description Last request made with the key, to the minute (written at most once a minute) */
                            lastUsedAt: string | null;
                            /** @description When the key was revoked; from then on it is refused as an unknown key (401). null = live */
                            revokedAt: string | null;
                            /** @description Who revoked it: a key id, `bootstrap` for CYRNEL_API_KEY, or `oauth:<sub>`; null = live */
                            revokedBy: string | null;
                        }[];
                        nextCursor: string | null;
                    };
                };
            };
            /** @description bad_request, validation_failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description cross_site_refused, forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description issuer_unavailable, shutting_down, database_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_storage */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createKey: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description What the key is for, e.g. the agent's name (1–100 characters) */
                    name: string;
                    /** @description admin: every route; agent: discovery, processes of its own, tool calls and /mcp */
                    role: "admin" | "agent";
                    /** @description Agent keys only: the services the key may see and call (others look as if they did not exist); null = all */
                    services?: string[] | null;
                    expiresAt?: string | null;
                };
            };
        };
        responses: {
            /** @description Created, with the key */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        name: string;
                        /** @description admin: every route; agent: discovery, processes of its own, tool calls and /mcp */
                        role: "admin" | "agent";
                        /** @description Agent keys only: the services the key may see and call (others look as if they did not exist); null = all */
                        services: string[] | null;
                        /** Format: date-time */
                        createdAt: string;
                        /** @description After this instant the key is refused (401); null = never */
                        expiresAt: string | null;
                        /** @description Last request made with the key, to the minute (written at most once a minute) */
                        lastUsedAt: string | null;
                        /** @description When the key was revoked; from then on it is refused as an unknown key (401). null = live */
                        revokedAt: string | null;
                        /** @description Who revoked it: a key id, `bootstrap` for CYRNEL_API_KEY, or `oauth:<sub>`; null = live */
                        revokedBy: string | null;
                        /** @description The bearer key (cyk_…). Shown only in this answer: only its SHA-256 is stored */
                        key: string;
                    };
                };
            };
            /** @description bad_request, validation_failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description cross_site_refused, forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description issuer_unavailable, shutting_down, database_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_storage */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The key's record */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        name: string;
                        /** @description admin: every route; agent: discovery, processes of its own, tool calls and /mcp */
                        role: "admin" | "agent";
                        /** @description Agent keys only: the services the key may see and call (others look as if they did not exist); null = all */
                        services: string[] | null;
                        /** Format: date-time */
                        createdAt: string;
                        /** @description After this instant the key is refused (401); null = never */
                        expiresAt: string | null;
                        /** @description Last request made with the key, to the minute (written at most once a minute) */
                        lastUsedAt: string | null;
                        /** @description When the key was revoked; from then on it is refused as an unknown key (401). null = live */
                        revokedAt: string | null;
                        /** @description Who revoked it: a key id, `bootstrap` for CYRNEL_API_KEY, or `oauth:<sub>`; null = live */
                        revokedBy: string | null;
                    };
                };
            };
            /** @description validation_failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description cross_site_refused, forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description issuer_unavailable, shutting_down, database_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_storage */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    revokeKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Revoked */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description validation_failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description cross_site_refused, forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description issuer_unavailable, shutting_down, database_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_storage */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    oauthProtectedResource: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The resource's metadata */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description This host (`CYRNEL_ADVERTISE_URL`): the resource tokens are for */
                        resource: string;
                        /** @description The issuer (`CYRNEL_OAUTH_ISSUER`) */
                        authorization_servers: string[];
                        bearer_methods_supported: "header"[];
                        scopes_supported: string[];
                        resource_name: string;
                    };
                };
            };
            /** @description not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    oauthProtectedResourceMcp: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The resource's metadata */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description This host (`CYRNEL_ADVERTISE_URL`): the resource tokens are for */
                        resource: string;
                        /** @description The issuer (`CYRNEL_OAUTH_ISSUER`) */
                        authorization_servers: string[];
                        bearer_methods_supported: "header"[];
                        scopes_supported: string[];
                        resource_name: string;
                    };
                };
            };
            /** @description not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getServiceOAuth: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The settings */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        serviceId: string;
                        /** @description The authorization-code flow the definition declares */
                        declared: {
                            authorizationUrl: string;
                            tokenUrl: string;
                            scopes: string[];
                        } | null;
                        clientId: string | null;
                        /** @description Whether a client secret is stored (it is never shown) */
                        clientSecretSet: boolean;
                        authorizationUrl: string | null;
                        tokenUrl: string | null;
                        revocationUrl: string | null;
                        scopes: string[];
                        /** @description `shared`: one connected account for every caller (an admin connects it). `per-caller`: each key or OAuth subject connects its own account; a caller without one gets `403 connection_required` */
                        credentials: "shared" | "per-caller";
                        authorizationParams: {
                            [key: string]: string;
                        };
                        /** @description Register this at the provider: `<CYRNEL_ADVERTISE_URL>/oauth/callback` */
                        redirectUri: string;
                        /** @description Whether accounts can be connected (a client and both URLs are set) */
                        ready: boolean;
                    };
                };
            };
            /** @description validation_failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description cross_site_refused, forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description issuer_unavailable, shutting_down, database_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_storage */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    putServiceOAuth: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The client registered at the provider */
                    clientId: string;
                    /** @description Write-only. Left out: the stored one is kept; null: removed (a public client, PKCE only) */
                    clientSecret?: string | null;
                    /** @description Where users sign in; left out: the one the definition declares */
                    authorizationUrl?: string | null;
                    /** @description Left out: the one the definition declares */
                    tokenUrl?: string | null;
                    /** @description RFC 7009 endpoint, called when a connection is deleted */
                    revocationUrl?: string | null;
                    /** @description Scopes asked for; left out: the ones the definition declares */
                    scopes?: string[] | null;
                    /** @description `shared`: one connected account for every caller (an admin connects it). `per-caller`: each key or OAuth subject connects its own account; a caller without one gets `403 connection_required` */
                    credentials?: "shared" | "per-caller";
                    /** @description Extra parameters of the authorization request, e.g. `{"access_type": "offline"}` */
                    authorizationParams?: {
                        [key: string]: string;
                    };
                };
            };
        };
        responses: {
            /** @description The settings */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        serviceId: string;
                        /** @description The authorization-code flow the definition declares */
                        declared: {
                            authorizationUrl: string;
                            tokenUrl: string;
                            scopes: string[];
                        } | null;
                        clientId: string | null;
                        /** @description Whether a client secret is stored (it is never shown) */
                        clientSecretSet: boolean;
                        authorizationUrl: string | null;
                        tokenUrl: string | null;
                        revocationUrl: string | null;
                        scopes: string[];
                        /** @description `shared`: one connected account for every caller (an admin connects it). `per-caller`: each key or OAuth subject connects its own account; a caller without one gets `403 connection_required` */
                        credentials: "shared" | "per-caller";
                        authorizationParams: {
                            [key: string]: string;
                        };
                        /** @description Register this at the provider: `<CYRNEL_ADVERTISE_URL>/oauth/callback` */
                        redirectUri: string;
                        /** @description Whether accounts can be connected (a client and both URLs are set) */
                        ready: boolean;
                    };
                };
            };
            /** @description bad_request, validation_failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description cross_site_refused, forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description payload_too_large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unsupported_media_type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description issuer_unavailable, shutting_down, database_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_storage */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteServiceOAuth: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Removed */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description validation_failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description cross_site_refused, forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description issuer_unavailable, shutting_down, database_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_storage */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listConnections: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The connections */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            id: string;
                            serviceId: string;
                            /** @description `shared`, or whose account it is: a key id, `oauth:<sub>`, or `bootstrap` (CYRNEL_API_KEY) */
                            owner: string;
                            scopes: string[];
                            /** @description When the current access token expires (it is refreshed before) */
                            expiresAt: string | null;
                            /** @description Whether a refresh token is kept */
                            refreshable: boolean;
                            /** Format: date-time */
                            createdAt: string;
                            refreshedAt: string | null;
                        }[];
                        nextCursor: string | null;
                    };
                };
            };
            /** @description validation_failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description cross_site_refused */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description issuer_unavailable, shutting_down, database_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_storage */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    startConnection: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Open `authorizationUrl` */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Open it in a browser: the provider signs the user in and sends it back to /oauth/callback */
                        authorizationUrl: string;
                        /** Format: date-time */
                        expiresAt: string;
                        owner: string;
                    };
                };
            };
            /** @description validation_failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description forbidden, cross_site_refused */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description issuer_unavailable, shutting_down, database_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_storage */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteConnection: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
                connectionId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Revoked and forgotten */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description validation_failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description cross_site_refused */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description not_found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description issuer_unavailable, shutting_down, database_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_storage */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    connectionCallback: {
        parameters: {
            query?: {
                state?: string;
                code?: string;
                error?: string;
                error_description?: string;
                iss?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Connected */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        connection: {
                            id: string;
                            serviceId: string;
                            /** @description `shared`, or whose account it is: a key id, `oauth:<sub>`, or `bootstrap` (CYRNEL_API_KEY) */
                            owner: string;
                            scopes: string[];
                            /** @description When the current access token expires (it is refreshed before) */
                            expiresAt: string | null;
                            /** @description Whether a refresh token is kept */
                            refreshable: boolean;
                            /** Format: date-time */
                            createdAt: string;
                            refreshedAt: string | null;
                        };
                    };
                };
            };
            /** @description validation_failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description upstream_error */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getStats: {
        parameters: {
            query?: {
                since?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The figures */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: date-time */
                        at: string;
                        /** Format: date-time */
                        since: string;
                        services: {
                            total: number;
                            enabled: number;
                        };
                        tools: {
                            total: number;
                            /** @description Enabled tools of enabled services that are not stale: what code can call now */
                            callable: number;
                        };
                        processes: {
                            /** @description Processes in each state but idle now, on every host (whenever they started) */
                            live: {
                                queued: number;
                                running: number;
                                suspended: number;
                                terminating: number;
                            };
                            /** @description Processes whose latest run ended at or after `since`, by exit state */
                            ended: {
                                success: number;
                                failed: number;
                                timeout: number;
                                canceled: number;
                            };
                            /** @description Of `ended.timeout`, those whose code never started: the run timed out waiting in the queue (or in its type check) */
                            queueTimeouts: number;
                        };
                        approvals: {
                            pending: number;
                        };
                        /** @description This host's active environment; null when none is active */
                        capacity: {
                            /** @description Whether the active environment takes one more run now */
                            admitted: boolean;
                            /** @description Why not, when it does not */
                            reason?: string;
                            retryAfterSeconds?: number;
                            /** @description Executions in the sandbox now; null when the environment does not say */
                            live: number | null;
                            maxLive: number | null;
                            /** @description Executions waiting in front of the sandbox */
                            queued: number | null;
                            maxQueued: number | null;
                        } | null;
                        queue: {
                            /** @description Runs waiting to start; null when nothing tells */
                            depth: number | null;
                            /** @description `cluster`: runs waiting for a host in PostgreSQL's process queue (every host's); `environment`: this host's environment queue */
                            source: "cluster" | "environment" | "none";
                        };
                    };
                };
            };
            /** @description bad_request, validation_failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description cross_site_refused, forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description issuer_unavailable, shutting_down, database_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_storage */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    metrics: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Prometheus text exposition format 0.0.4 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain; version=0.0.4; charset=utf-8": string;
                };
            };
            /** @description unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description cross_site_refused, forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description issuer_unavailable, shutting_down, database_unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description insufficient_storage */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
}
