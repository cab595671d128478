/** Services: what is installed, and installing another (from a URL, an uploaded file or a registry). */
import { useState } from "react";
import { api, unwrap } from "../api/client";
import { Badge } from "../components/badge";
import { ErrorBox } from "../components/error-box";
import { InstallServiceDialog } from "../components/install-service-dialog";
import { Loading } from "../components/loading";
import { PageHeader } from "../components/page-header";
import { TimeAgo } from "../components/time-ago";
import { useLoad } from "../hooks/use-load";
import { Link, navigate, segment } from "../router/router";

export function ServicesPage() {
  const [query, setQuery] = useState("");
  const [installing, setInstalling] = useState(false);
  const services = useLoad(
    () =>
      unwrap(
        api.GET("/services", { params: { query: { limit: 1000, ...(query.trim() && { query: query.trim() }) } } }),
      ),
    [query],
  );
  return (
    <>
      <PageHeader title="Services">
        <button type="button" className="button primary" onClick={() => setInstalling(true)}>
          Install service
        </button>
      </PageHeader>
      <div className="filters">
        <label>
          Filter
          <input
            type="search"
            value={query}
            onChange={(event) => setQuery(event.target.value)}
            placeholder="id, name or description"
          />
        </label>
      </div>
      <ErrorBox error={services.error} title="Could not list services" />
      {services.loading && !services.data && <Loading what="Loading services" />}
      {services.data &&
        (services.data.items.length === 0 ? (
          <p className="empty">
            {query
              ? "No service matches."
              : "No service is installed yet. Install one from an OpenAPI document's URL, a file or a registry."}
          </p>
        ) : (
          <div className="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Service</th>
                  <th scope="col">Adapter</th>
                  <th scope="col">Tools</th>
                  <th scope="col">State</th>
                  <th scope="col">Updated</th>
                </tr>
              </thead>
              <tbody>
                {services.data.items.map((service) => (
                  <tr key={service.id}>
                    <td>
                      <Link to={`/services/${segment(service.id)}`}>
                        <strong>{service.id}</strong>
                      </Link>
                      <div className="muted clip">{service.name}</div>
                    </td>
                    <td>
                      {service.adapter}
                      {service.version && <div className="muted">v{service.version}</div>}
                    </td>
                    <td>{service.toolCount}</td>
                    <td>
                      {service.stale ? (
                        <Badge tone="bad">stale</Badge>
                      ) : service.enabled ? (
                        <Badge tone="good">enabled</Badge>
                      ) : (
                        <Badge>disabled</Badge>
                      )}
                    </td>
                    <td>
                      <TimeAgo at={service.updatedAt} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ))}
      <InstallServiceDialog
        open={installing}
        onClose={() => setInstalling(false)}
        onInstalled={(id) => {
          setInstalling(false);
          navigate(`/services/${segment(id)}?installed=1`);
        }}
      />
    </>
  );
}
