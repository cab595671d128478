const relative = new Intl.RelativeTimeFormat("en", { numeric: "auto" });

/** "3 min ago", with the exact instant on hover and for screen readers. */
export function TimeAgo({ at }: { at: string | null | undefined }) {
  if (!at) return <span className="muted">—</span>;
  const seconds = Math.round((new Date(at).getTime() - Date.now()) / 1000);
  const abs = Math.abs(seconds);
  const text =
    abs < 60
      ? relative.format(seconds, "second")
      : abs < 3600
        ? relative.format(Math.round(seconds / 60), "minute")
        : abs < 86400
          ? relative.format(Math.round(seconds / 3600), "hour")
          : relative.format(Math.round(seconds / 86400), "day");
  return (
    <time dateTime={at} title={new Date(at).toLocaleString()}>
      {text}
    </time>
  );
}
