/** One tool: its docs page (the Markdown agents read), sanitised and rendered, with its switch and policy. */
import { lazy, Suspense } from "react";
import { api, unwrap } from "../api/client";
import { Badge, toneOf } from "../components/badge";
import { ErrorBox } from "../components/error-box";
import { Loading } from "../components/loading";
import { PageHeader } from "../components/page-header";
import { annotationBadges } from "../components/service-tools";
import { Switch } from "../components/switch";
import { useAction } from "../hooks/use-action";
import { useLoad } from "../hooks/use-load";
import { Link, segment } from "../router/router";

// marked and DOMPurify are needed on this page only: fetched when a docs page first shows, not at sign-in.
const Markdown = lazy(() => import("../components/markdown").then((module) => ({ default: module.Markdown })));

export function ToolPage({ serviceId, toolId }: { serviceId: string; toolId: string }) {
  const path = { serviceId, toolId };
  const tool = useLoad(() => unwrap(api.GET("/tools/{serviceId}/{toolId}", { params: { path } })), [serviceId, toolId]);
  const docs = useLoad(
    () => unwrap(api.GET("/tools/{serviceId}/{toolId}/docs", { params: { path }, parseAs: "text" })) as Promise<string>,
    [serviceId, toolId],
  );
  const toggle = useAction(async (enabled: boolean) => {
    await unwrap(api.POST("/tools/{serviceId}/{toolId}/enabled", { params: { path }, body: { enabled } }));
    await tool.reload(true);
    await docs.reload(true);
  });
  return (
    <>
      <PageHeader title={<code>{`${serviceId}.${toolId}`}</code>}>
        {tool.data && (
          <Switch
            checked={tool.data.enabled}
            label="Tool enabled"
            disabled={toggle.busy}
            onChange={(next) => void toggle.run(next)}
          />
        )}
      </PageHeader>
      <p>
        <Link to={`/services/${segment(serviceId)}`}>Service {serviceId}</Link>
        {tool.data && (
          <>
            {" "}
            · policy <Badge tone={toneOf(tool.data.policy)}>{tool.data.policy}</Badge> {annotationBadges(tool.data)}
            {!tool.data.effectivelyEnabled && <Badge tone="warn">not callable</Badge>}
          </>
        )}
      </p>
      <ErrorBox error={tool.error} title="Could not load the tool" />
      <ErrorBox error={toggle.error} title="The tool was not switched" />
      {docs.loading && !docs.data && <Loading what="Loading the docs" />}
      <ErrorBox error={docs.error} title="Could not load the docs" />
      {docs.data !== undefined && (
        <article className="card" aria-label="Documentation">
          <Suspense fallback={<Loading what="Loading the docs" />}>
            <Markdown text={docs.data} />
          </Suspense>
        </article>
      )}
    </>
  );
}
