/**
 * Skip links beyond "Skip to content": a page names the places worth jumping to (a service page its tools, past the
 * configuration, secrets and policy forms), and the shell lists them first in the Tab order, hidden until focused.
 * Following one moves focus to the place itself, so the next Tab lands on its first control.
 */
import { createContext, type ReactNode, useCallback, useContext, useEffect, useState } from "react";

interface SkipLink {
  target: string;
  label: string;
}

const Register = createContext<(link: SkipLink) => () => void>(() => () => {});

export function SkipLinks({ children }: { children(links: ReactNode): ReactNode }) {
  const [links, setLinks] = useState<SkipLink[]>([]);
  const register = useCallback((link: SkipLink) => {
    setLinks((current) => [...current.filter((one) => one.target !== link.target), link]);
    return () => setLinks((current) => current.filter((one) => one.target !== link.target));
  }, []);
  const rendered = links.map((link) => (
    <a
      key={link.target}
      className="skip-link"
      href={`#${link.target}`}
      onClick={(event) => {
        const target = document.getElementById(link.target);
        if (!target) return;
        event.preventDefault();
        if (!target.hasAttribute("tabindex")) target.setAttribute("tabindex", "-1");
        target.focus({ preventScroll: true });
        target.scrollIntoView({ block: "start" });
      }}
    >
      {link.label}
    </a>
  ));
  return <Register.Provider value={register}>{children(rendered)}</Register.Provider>;
}

/** Offers a skip link to the element with id `target` while the calling page is shown. */
export function useSkipLink(target: string, label: string): void {
  const register = useContext(Register);
  useEffect(() => register({ target, label }), [register, target, label]);
}
