/** The frame around every page: a skip link, the navigation (a menu button on narrow windows), sign-out, the page. */
import { type ReactNode, useState } from "react";
import { storeKey } from "../auth/session-key";
import { useFocusRescue } from "../hooks/use-focus-rescue";
import { usePendingApprovals } from "../hooks/use-pending-approvals";
import { Link } from "../router/router";
import type { Section } from "../routes";
import { SkipLinks } from "./skip-links";

const NAV: { section: Exclude<Section, null>; to: string; label: string }[] = [
  { section: "overview", to: "/", label: "Overview" },
  { section: "services", to: "/services", label: "Services" },
  { section: "tools", to: "/tools", label: "Tools" },
  { section: "processes", to: "/processes", label: "Processes" },
  { section: "approvals", to: "/approvals", label: "Approvals" },
  { section: "calls", to: "/calls", label: "Calls" },
  { section: "keys", to: "/keys", label: "API keys" },
  { section: "registries", to: "/registries", label: "Registries" },
  { section: "modules", to: "/modules", label: "Modules" },
];

export function Shell({ current, children }: { current: Section; children: ReactNode }) {
  const [menuOpen, setMenuOpen] = useState(false);
  useFocusRescue();
  const pending = usePendingApprovals();
  return (
    <SkipLinks>
      {(pageLinks) => (
        <div className="shell">
          <a className="skip-link" href="#main">
            Skip to content
          </a>
          {pageLinks}
          <header className="topbar">
            <Link to="/" className="brand">
              <span className="brand-mark" aria-hidden="true">
                ◆
              </span>
              cyrnel
            </Link>
            <button
              type="button"
              className="menu-button"
              aria-expanded={menuOpen}
              aria-controls="nav"
              onClick={() => setMenuOpen((open) => !open)}
            >
              Menu
            </button>
          </header>
          <nav id="nav" className={menuOpen ? "nav open" : "nav"} aria-label="Main">
            <ul>
              {NAV.map((item) => (
                <li key={item.section}>
                  <Link
                    to={item.to}
                    aria-current={item.section === current ? "page" : undefined}
                    // The count is the link's description, not its name: "Approvals" stays what it is called.
                    aria-describedby={item.section === "approvals" && pending ? "pending-count" : undefined}
                    onClick={() => setMenuOpen(false)}
                  >
                    {item.label}
                    {item.section === "approvals" && pending !== null && pending > 0 && (
                      <span className="nav-count" aria-hidden="true">
                        {pending}
                      </span>
                    )}
                  </Link>
                </li>
              ))}
            </ul>
            {pending !== null && pending > 0 && (
              <span id="pending-count" className="visually-hidden">
                {pending} pending
              </span>
            )}
            <button type="button" className="button subtle sign-out" onClick={() => storeKey(null)}>
              Sign out
            </button>
          </nav>
          <main id="main" className="main">
            {children}
          </main>
        </div>
      )}
    </SkipLinks>
  );
}
