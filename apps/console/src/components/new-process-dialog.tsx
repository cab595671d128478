/** Running new code as a process (not blocking: the process page follows it live). */
import { useState } from "react";
import { api, unwrap } from "../api/client";
import { useAction } from "../hooks/use-action";
import { Dialog } from "./dialog";
import { ErrorBox } from "./error-box";

const EXAMPLE = `// Top-level await works; cyrnel.output(...) is the result.
const services = Object.keys(cyrnel.services);
console.log("services:", services.join(", "));
cyrnel.output({ services });
`;

export function NewProcessDialog({
  open,
  onClose,
  onCreated,
}: {
  open: boolean;
  onClose(): void;
  onCreated(id: number): void;
}) {
  const [code, setCode] = useState(EXAMPLE);
  const [ref, setRef] = useState("");
  const [timeout, setTimeoutMs] = useState("30000");
  const [typecheck, setTypecheck] = useState(true);
  const create = useAction(async () => {
    const process = await unwrap(
      api.POST("/processes", {
        body: {
          code,
          typecheck,
          ...(ref.trim() && { ref: ref.trim() }),
          ...(timeout.trim() && { timeoutMs: Number(timeout) }),
        },
      }),
    );
    onCreated(process.id);
  });
  return (
    <Dialog open={open} title="Run code" onClose={onClose} wide>
      <form
        className="stack"
        onSubmit={(event) => {
          event.preventDefault();
          if (!create.busy && code.trim() !== "") void create.run();
        }}
        // Ctrl+Enter (Cmd+Enter on a Mac) runs from anywhere in the form, the code editor included.
        onKeyDown={(event) => {
          if (event.key !== "Enter" || !(event.ctrlKey || event.metaKey)) return;
          event.preventDefault();
          event.currentTarget.requestSubmit();
        }}
      >
        <label>
          <span>
            TypeScript <span className="muted">(Ctrl+Enter or ⌘+Enter runs it)</span>
          </span>
          <textarea
            className="code-input"
            value={code}
            onChange={(event) => setCode(event.target.value)}
            rows={12}
            spellCheck={false}
            required
          />
        </label>
        <div className="row">
          <label className="grow">
            <span>
              Ref <span className="muted">(optional label)</span>
            </span>
            <input value={ref} onChange={(event) => setRef(event.target.value)} />
          </label>
          <label>
            Timeout (ms)
            <input type="number" min={1} value={timeout} onChange={(event) => setTimeoutMs(event.target.value)} />
          </label>
          <label className="checkbox">
            <input type="checkbox" checked={typecheck} onChange={(event) => setTypecheck(event.target.checked)} />
            Type-check first
          </label>
        </div>
        <ErrorBox error={create.error} title="The process was not started" />
        <div className="dialog-actions">
          <button type="button" className="button" onClick={onClose}>
            Cancel
          </button>
          <button
            type="submit"
            className="button primary"
            disabled={create.busy || code.trim() === ""}
            aria-keyshortcuts="Control+Enter Meta+Enter"
          >
            {create.busy ? "Starting…" : "Run"}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
