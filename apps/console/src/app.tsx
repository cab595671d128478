/** The shell: sign-in until a key is stored, then the navigation and the page the path names. */
import { useEffect, useState } from "react";
import { onKeyChange, readKey } from "./auth/session-key";
import { SignInPage } from "./auth/sign-in-page";
import { Shell } from "./components/shell";
import { usePendingApprovals } from "./hooks/use-pending-approvals";
import { RouterProvider, useLocation } from "./router/router";
import { routeFor } from "./routes";

export function App() {
  const [key, setKey] = useState(readKey);
  useEffect(() => onKeyChange(setKey), []);
  return <RouterProvider>{key === null ? <SignInPage /> : <SignedIn />}</RouterProvider>;
}

function SignedIn() {
  const { path } = useLocation();
  const route = routeFor(path);
  const pending = usePendingApprovals();
  // The pending approvals lead the title, so a background tab shows that something waits.
  useEffect(() => {
    document.title = `${pending ? `(${pending}) ` : ""}${route.title} · cyrnel`;
  }, [route.title, pending]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: each new page (its title) takes focus once.
  useEffect(() => {
    // After a client-side navigation, move focus to the page's heading so keyboard and screen-reader users land on it.
    const heading = document.querySelector<HTMLElement>("main h1");
    heading?.focus({ preventScroll: true });
  }, [route.title]);
  return <Shell current={route.section}>{route.element}</Shell>;
}
