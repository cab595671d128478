import type { ReactNode } from "react";

export function PageHeader({ title, children }: { title: ReactNode; children?: ReactNode }) {
  return (
    <header className="page-header">
      <h1 tabIndex={-1}>{title}</h1>
      {children && <div className="page-actions">{children}</div>}
    </header>
  );
}
