import { useEffect, useState } from "react";

/**
 * A long operation under way (an install downloads a definition and generates its tools in one request, so the host
 * reports no percentage): an indeterminate bar, what is happening, and the seconds so far.
 */
export function Progress({ label }: { label: string }) {
  const [seconds, setSeconds] = useState(0);
  useEffect(() => {
    const started = Date.now();
    const id = window.setInterval(() => setSeconds(Math.floor((Date.now() - started) / 1000)), 500);
    return () => window.clearInterval(id);
  }, []);
  return (
    <div className="progress" role="status">
      <div className="progress-bar" role="progressbar" aria-label={label}>
        <span />
      </div>
      <span>
        {label}… {seconds > 0 && <span className="muted">{seconds} s</span>}
      </span>
    </div>
  );
}
