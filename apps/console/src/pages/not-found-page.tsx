import { PageHeader } from "../components/page-header";
import { Link } from "../router/router";

export function NotFoundPage() {
  return (
    <>
      <PageHeader title="Page not found" />
      <p>
        The console has no page here. <Link to="/">Go to the overview</Link>.
      </p>
    </>
  );
}
