/**
 * A modal dialog on the native <dialog>: showModal() makes the rest of the page inert (focus stays inside), Escape
 * closes it, and on close focus goes back to the element that opened it — or, when that is gone (the approval card
 * whose Approve button opened it was decided), to the page's heading rather than the document's body.
 *
 * On open, focus goes to what the dialog is for: an element marked `data-autofocus`, else its first field, else its
 * primary button, else its first control — not the × in the header, which showModal() would pick.
 */
import { type ReactNode, useEffect, useId, useRef } from "react";

const FOCUSABLE = 'a[href], button, input, select, textarea, [tabindex]:not([tabindex="-1"])';

export function Dialog({
  open,
  title,
  onClose,
  children,
  wide = false,
}: {
  open: boolean;
  title: string;
  onClose(): void;
  children: ReactNode;
  wide?: boolean;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const opener = useRef<Element | null>(null);
  const titleId = useId();

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) {
      opener.current = document.activeElement;
      dialog.showModal();
      firstControl(dialog)?.focus();
    } else if (!open && dialog.open) {
      dialog.close();
    }
  }, [open]);

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    const closed = () => {
      const back = opener.current instanceof HTMLElement && opener.current.isConnected ? opener.current : null;
      (back ?? document.querySelector<HTMLElement>("main h1"))?.focus();
      opener.current = null;
    };
    const cancel = (event: Event) => {
      event.preventDefault();
      onClose();
    };
    // A modal dialog makes the page behind it inert, but Tab past its last control still leaves the document (to the
    // browser's own UI): keep Tab and Shift+Tab cycling through the dialog's controls.
    const trap = (event: KeyboardEvent) => {
      if (event.key !== "Tab") return;
      const focusable = [...dialog.querySelectorAll<HTMLElement>(FOCUSABLE)].filter(
        (element) => !element.hasAttribute("disabled") && element.getClientRects().length > 0,
      );
      const first = focusable[0];
      const last = focusable.at(-1);
      if (!first || !last) return;
      if (event.shiftKey && (document.activeElement === first || !dialog.contains(document.activeElement))) {
        event.preventDefault();
        last.focus();
      } else if (!event.shiftKey && document.activeElement === last) {
        event.preventDefault();
        first.focus();
      }
    };
    dialog.addEventListener("close", closed);
    dialog.addEventListener("cancel", cancel);
    dialog.addEventListener("keydown", trap);
    return () => {
      dialog.removeEventListener("close", closed);
      dialog.removeEventListener("cancel", cancel);
      dialog.removeEventListener("keydown", trap);
    };
  }, [onClose]);

  return (
    <dialog ref={ref} aria-labelledby={titleId} className={wide ? "dialog wide" : "dialog"}>
      {open && (
        <>
          <header className="dialog-header">
            <h2 id={titleId}>{title}</h2>
            <button type="button" className="icon-button" aria-label="Close" onClick={onClose}>
              ×
            </button>
          </header>
          <div className="dialog-body">{children}</div>
        </>
      )}
    </dialog>
  );
}

const FIELD = 'input:not([type="hidden"]), select, textarea';

/** Where focus starts in an open dialog (see the file comment); null leaves the browser's choice. */
function firstControl(dialog: HTMLDialogElement): HTMLElement | null {
  const body = dialog.querySelector(".dialog-body");
  if (!body) return null;
  const usable = (selector: string) =>
    [...body.querySelectorAll<HTMLElement>(selector)].find(
      (element) => !element.hasAttribute("disabled") && element.getClientRects().length > 0,
    ) ?? null;
  return usable("[data-autofocus]") ?? usable(FIELD) ?? usable(".button.primary") ?? usable(FOCUSABLE);
}
