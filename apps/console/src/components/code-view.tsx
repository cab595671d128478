import { ScrollPre } from "./scroll-pre";

/** Submitted code with line numbers (as type-check errors cite them: code.ts:line:col). */
export function CodeView({ code, label = "Code" }: { code: string; label?: string }) {
  // A final newline ends the last line; it does not start another.
  const lines = code.replace(/\n$/, "").split("\n");
  return (
    <ScrollPre className="code-view" label={label}>
      <code>
        {lines.map((line, index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: a line's number is its identity.
          <span key={index} className="code-line">
            <span className="line-number" aria-hidden="true">
              {index + 1}
            </span>
            {line}
            {"\n"}
          </span>
        ))}
      </code>
    </ScrollPre>
  );
}
