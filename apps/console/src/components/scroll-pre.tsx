/**
 * A `<pre>` a keyboard can scroll: long lines scroll sideways inside it, and a region only the mouse can scroll
 * shuts keyboard users out (axe: scrollable-region-focusable). So it is focusable, and a named region so that a
 * screen reader says what it is when it takes focus.
 */
import type { HTMLAttributes, ReactNode } from "react";

export function ScrollPre({
  label,
  children,
  ...rest
}: { label: string; children: ReactNode } & Omit<HTMLAttributes<HTMLPreElement>, "role" | "tabIndex">) {
  return (
    // A region must be reachable without a mouse; and it stays a <pre> (a <section> would lose the whitespace).
    // biome-ignore lint/a11y/noNoninteractiveTabindex lint/a11y/useSemanticElements: see above.
    <pre role="region" aria-label={label} tabIndex={0} {...rest}>
      {children}
    </pre>
  );
}
