/**
 * An on/off control: a real button with role="switch", so keyboards and screen readers treat it as one.
 *
 * `disabled` is `aria-disabled`, not the `disabled` attribute: a switch is disabled while its own change is saved,
 * and a button that becomes `disabled` under the keyboard loses focus to the page's body (Space on a tool switch
 * would send the next Tab back to the top of the page). It stays focusable and ignores presses instead.
 */
export function Switch({
  checked,
  label,
  onChange,
  disabled = false,
}: {
  checked: boolean;
  label: string;
  onChange(next: boolean): void;
  disabled?: boolean;
}) {
  return (
    <button
      type="button"
      role="switch"
      aria-checked={checked}
      aria-label={label}
      aria-disabled={disabled || undefined}
      className="switch"
      onClick={() => {
        if (!disabled) onChange(!checked);
      }}
    >
      <span className="switch-track" aria-hidden="true">
        <span className="switch-thumb" />
      </span>
      <span className="switch-text">{checked ? "On" : "Off"}</span>
    </button>
  );
}
