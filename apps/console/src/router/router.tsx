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

/**
 * Pages with unsaved edits (useLeaveGuard): each gives the question to ask before the page is left. A reload, a
 * closed tab or an address typed in is asked by the browser (beforeunload, which shows its own words); a move inside
 * the console (a link, Back and Forward) is asked here.
 */
const leaveGuards = new Set<string>();

/** Whether the page may be left: no guard, or the operator said yes. */
function mayLeave(): boolean {
  for (const question of leaveGuards) if (!window.confirm(question)) return false;
  return true;
}

/** While `question` is not null, leaving the page (in the console or the browser) asks it first. */
export function useLeaveGuard(question: string | null): void {
  useEffect(() => {
    if (question === null) return;
    leaveGuards.add(question);
    const beforeUnload = (event: BeforeUnloadEvent) => {
      event.preventDefault();
      // Older browsers show the dialog only when returnValue is set.
      event.returnValue = question;
    };
    window.addEventListener("beforeunload", beforeUnload);
    return () => {
      leaveGuards.delete(question);
      window.removeEventListener("beforeunload", beforeUnload);
    };
  }, [question]);
}

/** The path a URL under /ui/ names, without its query. */
const pathOf = (to: string) => to.split(/[?#]/)[0];

/**
 * Goes to a console path ("/services?x=1"); `replace` keeps the history entry (filters in the query string). Another
 * page is asked of the leave guards first; a new query on the same page is not.
 */
export function navigate(to: string, { replace = false } = {}): void {
  if (pathOf(to) !== current().path && !mayLeave()) return;
  const url = `${BASE}${to}`;
  if (replace) window.history.replaceState(null, "", url);
  else window.history.pushState(null, "", url);
  window.dispatchEvent(new Event(NAVIGATED));
}

export function RouterProvider({ children }: { children: ReactNode }) {
  const [location, setLocation] = useState(current);
  useEffect(() => {
    let shown = window.location.href;
    const update = () => {
      shown = window.location.href;
      setLocation(current());
    };
    // Back or Forward has already moved the address when it is heard: a "no" to a guard puts the page's back.
    const popped = () => {
      if (leaveGuards.size > 0 && !mayLeave()) {
        window.history.pushState(null, "", shown);
        return;
      }
      update();
    };
    window.addEventListener("popstate", popped);
    window.addEventListener(NAVIGATED, update);
    return () => {
      window.removeEventListener("popstate", popped);
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
