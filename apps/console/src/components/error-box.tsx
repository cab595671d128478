import { describeError } from "../api/api-error";

/** An API error as the host put it: its `code` and its message. */
export function ErrorBox({ error, title = "Something went wrong" }: { error: unknown; title?: string }) {
  if (error === null || error === undefined) return null;
  const { code, message } = describeError(error);
  return (
    <div className="error-box" role="alert">
      <strong>{title}</strong>
      {code !== null && <code className="error-code">{code}</code>}
      <p>{message}</p>
    </div>
  );
}
