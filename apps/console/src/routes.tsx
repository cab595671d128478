/** Which page each console path shows. */
import type { ReactNode } from "react";
import { ApprovalsPage } from "./pages/approvals-page";
import { CallsPage } from "./pages/calls-page";
import { KeysPage } from "./pages/keys-page";
import { ModulesPage } from "./pages/modules-page";
import { NotFoundPage } from "./pages/not-found-page";
import { OverviewPage } from "./pages/overview-page";
import { ProcessPage } from "./pages/process-page";
import { ProcessesPage } from "./pages/processes-page";
import { RegistriesPage } from "./pages/registries-page";
import { ServicePage } from "./pages/service-page";
import { ServicesPage } from "./pages/services-page";
import { ToolPage } from "./pages/tool-page";
import { ToolsPage } from "./pages/tools-page";
import { matchPath } from "./router/router";

export type Section =
  | "overview"
  | "services"
  | "tools"
  | "processes"
  | "approvals"
  | "calls"
  | "keys"
  | "registries"
  | "modules"
  | null;

interface Route {
  section: Section;
  title: string;
  element: ReactNode;
}

export function routeFor(path: string): Route {
  const table: [string, (p: Record<string, string>) => Route][] = [
    ["/", () => ({ section: "overview", title: "Overview", element: <OverviewPage /> })],
    ["/services", () => ({ section: "services", title: "Services", element: <ServicesPage /> })],
    ["/services/:id", (p) => ({ section: "services", title: p.id!, element: <ServicePage key={p.id} id={p.id!} /> })],
    ["/tools", () => ({ section: "tools", title: "Tools", element: <ToolsPage /> })],
    [
      "/tools/:serviceId/:toolId",
      (p) => ({
        section: "tools",
        title: `${p.serviceId}.${p.toolId}`,
        element: <ToolPage key={`${p.serviceId}/${p.toolId}`} serviceId={p.serviceId!} toolId={p.toolId!} />,
      }),
    ],
    ["/processes", () => ({ section: "processes", title: "Processes", element: <ProcessesPage /> })],
    [
      "/processes/:id",
      (p) => ({
        section: "processes",
        title: `Process ${p.id}`,
        element: <ProcessPage key={p.id} id={Number(p.id)} />,
      }),
    ],
    ["/approvals", () => ({ section: "approvals", title: "Approvals", element: <ApprovalsPage /> })],
    ["/calls", () => ({ section: "calls", title: "Tool calls", element: <CallsPage /> })],
    ["/keys", () => ({ section: "keys", title: "API keys", element: <KeysPage /> })],
    ["/registries", () => ({ section: "registries", title: "Registries", element: <RegistriesPage /> })],
    ["/modules", () => ({ section: "modules", title: "Modules", element: <ModulesPage /> })],
  ];
  for (const [pattern, build] of table) {
    const params = matchPath(pattern, path);
    if (params && !(pattern === "/processes/:id" && !/^\d+$/.test(params.id ?? ""))) return build(params);
  }
  return { section: null, title: "Not found", element: <NotFoundPage /> };
}
