/** A polite "loading" that screen readers announce once. */
export function Loading({ what = "Loading" }: { what?: string }) {
  return (
    <p className="loading" role="status">
      <span className="spinner" aria-hidden="true" />
      {what}…
    </p>
  );
}
