/**
 * Keeps keyboard focus from falling to the document's body when the focused control disappears: an approval card
 * removed once its call is decided (after its dialog gave focus back to the card's button), a row re-rendered after
 * a reload. The browser would then start the next Tab from the top of the page; instead focus moves to the page's
 * heading, the place a navigation leaves it too. A click on the page's background (focus on the body while the last
 * focused element is still there) is left alone.
 */
import { useEffect } from "react";

export function useFocusRescue(): void {
  useEffect(() => {
    let last: Element | null = null;
    const track = (event: FocusEvent) => {
      last = event.target instanceof Element ? event.target : null;
    };
    const rescue = () => {
      if (last === null || last.isConnected) return;
      last = null;
      if (document.activeElement !== null && document.activeElement !== document.body) return;
      document.querySelector<HTMLElement>("main h1")?.focus({ preventScroll: true });
    };
    const observer = new MutationObserver(rescue);
    observer.observe(document.body, { childList: true, subtree: true });
    document.addEventListener("focusin", track);
    return () => {
      observer.disconnect();
      document.removeEventListener("focusin", track);
    };
  }, []);
}
