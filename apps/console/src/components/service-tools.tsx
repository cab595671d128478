/**
 * A service's tools with a switch each (a disabled tool can never cause a request), its policy and annotations.
 *
 * Built for big services (GitHub's REST API: 1,223 tools): every tool's summary is read once (pages of 1000, no
 * schemas), filtered in the browser, and shown PAGE_SIZE rows at a time with the totals, so the page holds a few
 * hundred nodes whatever the service's size. A switch changes its own row only, from the host's answer: the list is
 * not read again and the row is not re-created, so focus stays on the switch. Bulk changes (the filtered tools, or
 * every destructive one) are one request (`POST /services/{id}/tools/enabled`), then one read of the list.
 */
import { memo, useCallback, useMemo, useRef, useState } from "react";
import { api, unwrap } from "../api/client";
import type { ToolRecord } from "../api/types";
import { useAction } from "../hooks/use-action";
import { useLoad } from "../hooks/use-load";
import { Link, segment } from "../router/router";
import { Badge, toneOf } from "./badge";
import { ErrorBox } from "./error-box";
import { Loading } from "./loading";
import { Switch } from "./switch";

/** Rows on one page of the table. */
export const PAGE_SIZE = 100;
const count = (n: number) => n.toLocaleString("en");

export function annotationBadges(tool: Pick<ToolRecord, "annotations">) {
  const { readOnly, destructive } = tool.annotations;
  return (
    <>
      {readOnly && <Badge tone="info">read-only</Badge>}
      {destructive && <Badge tone="bad">destructive</Badge>}
    </>
  );
}

type Shown = "all" | "enabled" | "disabled";

/** Every tool of the service, without schemas: pages of 1000 until the host says there are no more. */
async function readTools(serviceId: string): Promise<ToolRecord[]> {
  const tools: ToolRecord[] = [];
  let cursor: string | undefined;
  do {
    const page = await unwrap(
      api.GET("/tools", { params: { query: { serviceId, limit: 1000, ...(cursor !== undefined && { cursor }) } } }),
    );
    tools.push(...page.items);
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined);
  return tools;
}

export function ServiceTools({ serviceId, revision }: { serviceId: string; revision: number }) {
  const loaded = useLoad(() => readTools(serviceId), [serviceId, revision]);
  // Rows the host answered for since the list was read (a switch's answer), by id: the list itself is not read again.
  const [changed, setChanged] = useState<ReadonlyMap<string, ToolRecord>>(new Map());
  const inFlight = useRef(new Set<string>());
  const [busy, setBusy] = useState<ReadonlySet<string>>(new Set());
  const [toggleError, setToggleError] = useState<{ toolId: string; error: unknown } | null>(null);
  const [text, setText] = useState("");
  const [shown, setShown] = useState<Shown>("all");
  const [destructiveOnly, setDestructiveOnly] = useState(false);
  const [page, setPage] = useState(0);
  const [bulkResult, setBulkResult] = useState<string | null>(null);

  const tools = useMemo(() => (loaded.data ?? []).map((tool) => changed.get(tool.id) ?? tool), [loaded.data, changed]);
  const filtered = useMemo(() => {
    const needle = text.trim().toLowerCase();
    return tools.filter(
      (tool) =>
        (needle === "" || tool.id.toLowerCase().includes(needle) || tool.name.toLowerCase().includes(needle)) &&
        (shown === "all" || tool.enabled === (shown === "enabled")) &&
        (!destructiveOnly || tool.annotations.destructive === true),
    );
  }, [tools, text, shown, destructiveOnly]);
  const destructive = useMemo(() => tools.filter((tool) => tool.annotations.destructive === true), [tools]);
  const pages = Math.max(1, Math.ceil(filtered.length / PAGE_SIZE));
  const current = Math.min(page, pages - 1);
  const rows = filtered.slice(current * PAGE_SIZE, (current + 1) * PAGE_SIZE);
  const narrowed = filtered.length !== tools.length;

  const toggle = useCallback(async (tool: ToolRecord, enabled: boolean) => {
    // A second press while the first is under way does nothing (the switch stays enabled to keep focus).
    if (inFlight.current.has(tool.id)) return;
    inFlight.current.add(tool.id);
    setBusy(new Set(inFlight.current));
    setToggleError(null);
    try {
      const answer = await unwrap(
        api.POST("/tools/{serviceId}/{toolId}/enabled", {
          params: { path: { serviceId: tool.serviceId, toolId: tool.id } },
          body: { enabled },
        }),
      );
      const { inputSchema: _input, outputSchema: _output, ...record } = answer;
      setChanged((rows) => new Map(rows).set(tool.id, record));
    } catch (error) {
      setToggleError({ toolId: tool.id, error });
    } finally {
      inFlight.current.delete(tool.id);
      setBusy(new Set(inFlight.current));
    }
  }, []);

  const bulk = useAction(async (enabled: boolean, which: "filtered" | "destructive") => {
    setBulkResult(null);
    const body =
      which === "destructive"
        ? { enabled, destructive: true }
        : narrowed
          ? { enabled, toolIds: filtered.map((tool) => tool.id) }
          : { enabled };
    const answer = await unwrap(
      api.POST("/services/{id}/tools/enabled", { params: { path: { id: serviceId } }, body }),
    );
    const verb = enabled ? "Enabled" : "Disabled";
    const unchanged = answer.matched - answer.changed;
    setBulkResult(
      `${verb} ${count(answer.changed)} ${answer.changed === 1 ? "tool" : "tools"}` +
        (unchanged > 0 ? ` (${count(unchanged)} already ${enabled ? "on" : "off"})` : "") +
        ".",
    );
    setChanged(new Map());
    await loaded.reload(true);
  });

  const filterBy = (apply: () => void) => {
    apply();
    setPage(0);
  };

  return (
    <section className="card" aria-labelledby="tools-title">
      <h2 id="tools-title">
        Tools <span className="count">{loaded.data && count(tools.length)}</span>
      </h2>
      {loaded.loading && !loaded.data && <Loading what="Loading tools" />}
      <ErrorBox error={loaded.error} title="Could not list tools" />
      {loaded.data && (
        <>
          <div className="filters">
            <label className="grow">
              Filter
              <input
                type="search"
                value={text}
                placeholder="Id or name"
                onChange={(event) => filterBy(() => setText(event.target.value))}
              />
            </label>
            <label>
              Show
              <select value={shown} onChange={(event) => filterBy(() => setShown(event.target.value as Shown))}>
                <option value="all">all</option>
                <option value="enabled">enabled</option>
                <option value="disabled">disabled</option>
              </select>
            </label>
            <label className="checkbox">
              <input
                type="checkbox"
                checked={destructiveOnly}
                onChange={(event) => filterBy(() => setDestructiveOnly(event.target.checked))}
              />
              Destructive only
            </label>
          </div>
          <div className="row bulk-actions">
            <button
              type="button"
              className="button"
              disabled={bulk.busy || filtered.length === 0}
              onClick={() => void bulk.run(true, "filtered")}
            >
              Enable {narrowed ? `the ${count(filtered.length)} filtered` : `all ${count(tools.length)}`}
            </button>
            <button
              type="button"
              className="button"
              disabled={bulk.busy || filtered.length === 0}
              onClick={() => void bulk.run(false, "filtered")}
            >
              Disable {narrowed ? `the ${count(filtered.length)} filtered` : `all ${count(tools.length)}`}
            </button>
            <button
              type="button"
              className="button"
              disabled={bulk.busy || destructive.length === 0}
              onClick={() => void bulk.run(false, "destructive")}
            >
              Disable all {count(destructive.length)} destructive
            </button>
          </div>
          <ErrorBox error={bulk.error} title="The tools were not switched" />
          {bulkResult && !bulk.error && (
            <p className="success" role="status">
              {bulkResult}
            </p>
          )}
          <ErrorBox error={toggleError?.error ?? null} title={`Tool ${toggleError?.toolId ?? ""} was not switched`} />
          <p className="muted" aria-live="polite">
            {filtered.length === 0
              ? `No tool matches (${count(tools.length)} tools).`
              : `Showing ${count(current * PAGE_SIZE + 1)}–${count(current * PAGE_SIZE + rows.length)} of ` +
                (narrowed ? `${count(filtered.length)} matching · ` : "") +
                `${count(tools.length)} tools`}
          </p>
          {rows.length > 0 && (
            // The service page's "Skip to tools" lands here, past the filters and bulk actions: the next Tab is a row.
            <div className="table-wrap" id="tools-table">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Tool</th>
                    <th scope="col">Policy</th>
                    <th scope="col">Enabled</th>
                  </tr>
                </thead>
                <tbody>
                  {rows.map((tool) => (
                    <ToolRow key={tool.id} tool={tool} busy={busy.has(tool.id)} onToggle={toggle} />
                  ))}
                </tbody>
              </table>
            </div>
          )}
          {pages > 1 && (
            <nav className="row pager" aria-label="Tool pages">
              <button type="button" className="button" disabled={current === 0} onClick={() => setPage(current - 1)}>
                Previous
              </button>
              <span className="muted">
                Page {current + 1} of {pages}
              </span>
              <button
                type="button"
                className="button"
                disabled={current >= pages - 1}
                onClick={() => setPage(current + 1)}
              >
                Next
              </button>
            </nav>
          )}
        </>
      )}
    </section>
  );
}

/** One tool's row: memoised, so a switch re-renders its own row only. */
const ToolRow = memo(function ToolRow({
  tool,
  busy,
  onToggle,
}: {
  tool: ToolRecord;
  busy: boolean;
  onToggle(tool: ToolRecord, enabled: boolean): void;
}) {
  return (
    <tr aria-busy={busy || undefined}>
      <td>
        <Link to={`/tools/${segment(tool.serviceId)}/${segment(tool.id)}`}>
          <code>{tool.id}</code>
        </Link>{" "}
        {annotationBadges(tool)}
        <div className="muted clip">{tool.name}</div>
      </td>
      <td>
        <Badge tone={toneOf(tool.policy)}>{tool.policy}</Badge>
      </td>
      <td>
        {/* Never disabled while its change is under way: a disabled button drops focus to the page body. */}
        <Switch checked={tool.enabled} label={`Tool ${tool.id} enabled`} onChange={(next) => onToggle(tool, next)} />
      </td>
    </tr>
  );
});
