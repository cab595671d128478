/** A service's tools with a switch each (a disabled tool can never cause a request), its policy and annotations. */
import { api, unwrap } from "../api/client";
import type { ToolRecord } from "../api/types";
import { useAction } from "../hooks/use-action";
import { useLoad } from "../hooks/use-load";
import { Link, segment } from "../router/router";
import { Badge, toneOf } from "./badge";
import { ErrorBox } from "./error-box";
import { Loading } from "./loading";
import { Switch } from "./switch";

export function annotationBadges(tool: Pick<ToolRecord, "annotations">) {
  const { readOnly, destructive } = tool.annotations;
  return (
    <>
      {readOnly && <Badge tone="info">read-only</Badge>}
      {destructive && <Badge tone="bad">destructive</Badge>}
    </>
  );
}

export function ServiceTools({ serviceId, revision }: { serviceId: string; revision: number }) {
  const tools = useLoad(
    () => unwrap(api.GET("/tools", { params: { query: { serviceId, limit: 1000 } } })),
    [serviceId, revision],
  );
  const toggle = useAction(async (tool: ToolRecord, enabled: boolean) => {
    await unwrap(
      api.POST("/tools/{serviceId}/{toolId}/enabled", {
        params: { path: { serviceId: tool.serviceId, toolId: tool.id } },
        body: { enabled },
      }),
    );
    await tools.reload(true);
  });
  return (
    <section className="card" aria-labelledby="tools-title">
      <h2 id="tools-title">Tools</h2>
      {tools.loading && !tools.data && <Loading what="Loading tools" />}
      <ErrorBox error={tools.error} title="Could not list tools" />
      <ErrorBox error={toggle.error} title="The tool was not switched" />
      {tools.data && (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Tool</th>
                <th scope="col">Policy</th>
                <th scope="col">Enabled</th>
              </tr>
            </thead>
            <tbody>
              {tools.data.items.map((tool) => (
                <tr key={tool.id}>
                  <td>
                    <Link to={`/tools/${segment(serviceId)}/${segment(tool.id)}`}>
                      <code>{tool.id}</code>
                    </Link>{" "}
                    {annotationBadges(tool)}
                    <div className="muted clip">{tool.name}</div>
                  </td>
                  <td>
                    <Badge tone={toneOf(tool.policy)}>{tool.policy}</Badge>
                  </td>
                  <td>
                    <Switch
                      checked={tool.enabled}
                      label={`Tool ${tool.id} enabled`}
                      disabled={toggle.busy}
                      onChange={(next) => void toggle.run(tool, next)}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
