/**
 * Tools: ranked search (the host's BM25 search over titles, ids, endpoints and descriptions) or the plain list,
 * narrowed by service, 100 at a time (previous/next) with the total of the plain list (the service's tool count, or
 * the host's from GET /stats: no extra counting query); each tool links to its rendered docs.
 */
import { useState } from "react";
import { api, unwrap } from "../api/client";
import { Badge, toneOf } from "../components/badge";
import { ErrorBox } from "../components/error-box";
import { Loading } from "../components/loading";
import { PageHeader } from "../components/page-header";
import { annotationBadges } from "../components/service-tools";
import { useLoad } from "../hooks/use-load";
import { Link, navigate, segment, useLocation } from "../router/router";

const PAGE = 100;

export function ToolsPage() {
  const { search: params } = useLocation();
  const search = params.get("search") ?? "";
  const serviceId = params.get("service") ?? "";
  const includeDisabled = params.get("disabled") === "1";
  const [draft, setDraft] = useState(search);
  // The cursors of the pages before this one ("Previous" goes back one); a new query starts again at the first.
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors.at(-1);

  const services = useLoad(
    async () => (await unwrap(api.GET("/services", { params: { query: { limit: 1000 } } }))).items,
    [],
  );
  const tools = useLoad(
    () =>
      unwrap(
        api.GET("/tools", {
          params: {
            query: {
              limit: PAGE,
              ...(search.trim() && { search: search.trim(), includeDisabled }),
              ...(serviceId && { serviceId }),
              ...(cursor && { cursor }),
            },
          },
        }),
      ),
    [search, serviceId, includeDisabled, cursor],
  );
  const stats = useLoad(() => unwrap(api.GET("/stats")), []);
  // Ranked results have no total (the search decides how many match); the plain list's is known without counting.
  const total = search
    ? undefined
    : serviceId
      ? services.data?.find((s) => s.id === serviceId)?.toolCount
      : stats.data?.tools.total;
  const first = cursors.length * PAGE + 1;

  // A search that finds nothing callable asks again with the tools that cannot be called, to say why: right after an
  // install the new service is disabled, and "no tool matches" would send the operator looking for the wrong thing.
  const nothingCallable = search.trim() !== "" && !includeDisabled && tools.data?.items.length === 0;
  const uncallable = useLoad(
    async () =>
      nothingCallable
        ? (
            await unwrap(
              api.GET("/tools", {
                params: {
                  query: { limit: 100, search: search.trim(), includeDisabled: true, ...(serviceId && { serviceId }) },
                },
              }),
            )
          ).items
        : [],
    [nothingCallable, search, serviceId],
  );

  const setParams = (change: Record<string, string>) => {
    const next = new URLSearchParams(params);
    for (const [key, value] of Object.entries(change)) {
      if (value === "") next.delete(key);
      else next.set(key, value);
    }
    setCursors([]);
    const query = next.toString();
    navigate(`/tools${query ? `?${query}` : ""}`, { replace: true });
  };

  return (
    <>
      <PageHeader title="Tools" />
      <form
        className="filters"
        onSubmit={(event) => {
          event.preventDefault();
          setParams({ search: draft.trim() });
        }}
      >
        <label className="grow">
          Search for a task
          <input
            type="search"
            value={draft}
            onChange={(event) => setDraft(event.target.value)}
            placeholder="e.g. forecast for a city"
          />
        </label>
        <label>
          Service
          <select value={serviceId} onChange={(event) => setParams({ service: event.target.value })}>
            <option value="">All services</option>
            {(services.data ?? []).map((s) => (
              <option key={s.id} value={s.id}>
                {s.id}
              </option>
            ))}
          </select>
        </label>
        <label className="checkbox">
          <input
            type="checkbox"
            checked={includeDisabled}
            onChange={(event) => setParams({ disabled: event.target.checked ? "1" : "" })}
          />
          Include tools that cannot be called
        </label>
        <button type="submit" className="button primary">
          Search
        </button>
      </form>
      {search && (
        <p className="muted">
          Ranked by relevance to “{search}”{" "}
          <button
            type="button"
            className="link-button"
            onClick={() => {
              setDraft("");
              setParams({ search: "" });
            }}
          >
            Clear search
          </button>
        </p>
      )}
      <ErrorBox error={tools.error} title="Could not load tools" />
      {tools.loading && !tools.data && <Loading what="Loading tools" />}
      {tools.data &&
        (tools.data.items.length === 0 ? (
          search ? (
            <NothingCallable
              matches={uncallable.data ?? []}
              disabledServices={new Set((services.data ?? []).filter((s) => !s.enabled).map((s) => s.id))}
              onInclude={() => setParams({ disabled: "1" })}
            />
          ) : (
            <p className="empty">No tools yet: install a service.</p>
          )
        ) : (
          <ol className="tool-list">
            {tools.data.items.map((tool, index) => (
              <li key={`${tool.serviceId}/${tool.id}`} className="card tool-item">
                <div className="tool-head">
                  {search && (
                    <span className="rank">
                      <span className="visually-hidden">rank </span>
                      {first + index}
                    </span>
                  )}
                  <Link to={`/tools/${segment(tool.serviceId)}/${segment(tool.id)}`}>
                    <code>
                      {tool.serviceId}.{tool.id}
                    </code>
                  </Link>
                  <Badge tone={toneOf(tool.policy)}>{tool.policy}</Badge>
                  {!tool.effectivelyEnabled && <Badge tone="warn">not callable</Badge>}
                  {annotationBadges(tool)}
                </div>
                <p className="clip">{tool.name}</p>
              </li>
            ))}
          </ol>
        ))}
      {tools.data && tools.data.items.length > 0 && (
        <div className="row">
          <button
            type="button"
            className="button"
            disabled={cursors.length === 0}
            onClick={() => setCursors((list) => list.slice(0, -1))}
          >
            Previous
          </button>
          <button
            type="button"
            className="button"
            disabled={!tools.data.nextCursor}
            onClick={() => {
              const next = tools.data?.nextCursor;
              if (next) setCursors((list) => [...list, next]);
            }}
          >
            Next
          </button>
          <span className="muted" role="status" data-testid="tools-range">
            {first}–{first + tools.data.items.length - 1}
            {total !== undefined ? ` of ${total}` : tools.data.nextCursor ? ", more on the next page" : ""}
          </span>
        </div>
      )}
    </>
  );
}

/** Why a search found nothing callable: the matches that cannot be called, by service, and what would change that. */
function NothingCallable({
  matches,
  disabledServices,
  onInclude,
}: {
  matches: { serviceId: string }[];
  disabledServices: Set<string>;
  onInclude(): void;
}) {
  if (matches.length === 0) {
    return <p className="empty">No tool matches. Try other words.</p>;
  }
  const byService = new Map<string, number>();
  for (const match of matches) byService.set(match.serviceId, (byService.get(match.serviceId) ?? 0) + 1);
  return (
    <div className="empty" role="status">
      <p>
        No callable tool matches, but {matches.length === 100 ? "100 or more" : matches.length}{" "}
        {matches.length === 1 ? "tool that cannot be called matches" : "tools that cannot be called match"}:{" "}
        <button type="button" className="link-button" onClick={onInclude}>
          show them
        </button>
        .
      </p>
      <ul>
        {[...byService].map(([serviceId, count]) => (
          <li key={serviceId}>
            {count} in <Link to={`/services/${segment(serviceId)}`}>{serviceId}</Link>
            {disabledServices.has(serviceId)
              ? ": the service is disabled — enable it on its page to call them."
              : ": switched off, or the service is not running — see its page."}
          </li>
        ))}
      </ul>
    </div>
  );
}
