/**
 * A small client-side router for the console's few pages under /ui/: the History API and one context. The host
 * answers index.html for every path under /ui/ that is not a file, so a reload or a pasted link lands on the page.
 */
import {
  type AnchorHTMLAttributes,
  createContext,
  type MouseEvent,
  type ReactNode,
  useContext,
  useEffect,
  useState,
} from "react";

export const BASE = "/ui";

interface Location {
  /** The path under /ui, starting with "/" (e.g. "/services/weather"). */
  path: string;
  search: URLSearchParams;
}

const RouterContext = createContext<Location>({ path: "/", search: new URLSearchParams() });

function current(): Location {
  const { pathname, search } = window.location;
  const path = pathname.startsWith(BASE) ? pathname.slice(BASE.length) || "/" : "/";
  return { path, search: new URLSearchParams(search) };
}

const NAVIGATED = "cyrnel:navigated";

/** Goes to a console path ("/services?x=1"); `replace` keeps the history entry (filters in the query string). */
export function navigate(to: string, { replace = false } = {}): void {
  const url = `${BASE}${to}`;
  if (replace) window.history.replaceState(null, "", url);
  else window.history.pushState(null, "", url);
  window.dispatchEvent(new Event(NAVIGATED));
}

export function RouterProvider({ children }: { children: ReactNode }) {
  const [location, setLocation] = useState(current);
  useEffect(() => {
    const update = () => setLocation(current());
    window.addEventListener("popstate", update);
    window.addEventListener(NAVIGATED, update);
    return () => {
      window.removeEventListener("popstate", update);
      window.removeEventListener(NAVIGATED, update);
    };
  }, []);
  return <RouterContext.Provider value={location}>{children}</RouterContext.Provider>;
}

export const useLocation = () => useContext(RouterContext);

/** Matches `pattern` ("/services/:id") against the current path; the parameters decoded, or null. */
export function matchPath(pattern: string, path: string): Record<string, string> | null {
  const want = pattern.split("/").filter(Boolean);
  const have = path.split("/").filter(Boolean);
  if (want.length !== have.length) return null;
  const params: Record<string, string> = {};
  for (const [index, part] of want.entries()) {
    const segment = have[index]!;
    if (part.startsWith(":")) params[part.slice(1)] = decodeURIComponent(segment);
    else if (part !== segment) return null;
  }
  return params;
}

/** A real link (middle-click, copy link address work); a plain click stays in the page. */
export function Link({
  to,
  children,
  ...rest
}: { to: string; children: ReactNode } & AnchorHTMLAttributes<HTMLAnchorElement>) {
  const onClick = (event: MouseEvent<HTMLAnchorElement>) => {
    rest.onClick?.(event);
    if (
      event.defaultPrevented ||
      event.button !== 0 ||
      event.metaKey ||
      event.ctrlKey ||
      event.shiftKey ||
      event.altKey
    )
      return;
    event.preventDefault();
    navigate(to);
  };
  return (
    <a {...rest} href={`${BASE}${to}`} onClick={onClick}>
      {children}
    </a>
  );
}

/** Encodes one path segment (service and tool ids are identifiers, but the console never assumes it). */
export const segment = (value: string | number) => encodeURIComponent(String(value));
