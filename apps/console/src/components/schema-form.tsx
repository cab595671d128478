/**
 * A form generated from a JSON Schema (a service's or module's config or secrets schema, as its adapter declares it)
 * with rjsf: nothing about a particular adapter is written by hand here.
 */
import Form, { type IChangeEvent } from "@rjsf/core";
import type { RJSFSchema, UiSchema } from "@rjsf/utils";
import { useMemo, useState } from "react";
import { cspSafeValidator } from "../forms/csp-safe-validator";

type Json = Record<string, unknown>;

const propertiesOf = (schema: Json) => Object.keys((schema.properties as Json | undefined) ?? {});

/** Whether the schema has any field to show. */
export const hasFields = (schema: Json) =>
  propertiesOf(schema).length > 0 ||
  schema.additionalProperties === true ||
  typeof schema.additionalProperties === "object";

export function ConfigForm({
  schema,
  value,
  busy,
  onSubmit,
  idPrefix,
}: {
  schema: Json;
  value: Json;
  busy: boolean;
  onSubmit(next: Json): void;
  idPrefix: string;
}) {
  const [draft, setDraft] = useState<Json>(value);
  return (
    <Form
      schema={schema as RJSFSchema}
      validator={cspSafeValidator}
      formData={draft}
      idPrefix={idPrefix}
      onChange={(event: IChangeEvent) => setDraft((event.formData ?? {}) as Json)}
      onSubmit={(event: IChangeEvent) => onSubmit((event.formData ?? {}) as Json)}
      showErrorList={false}
      noHtml5Validate
      disabled={busy}
    >
      <button type="submit" className="button primary" disabled={busy}>
        {busy ? "Saving…" : "Save configuration"}
      </button>
    </Form>
  );
}

/**
 * Write-only secrets: password inputs that start empty every time, a note on which are already set, and only the
 * fields the operator typed into are sent (the rest keep their stored values). `required` is dropped from the schema
 * here because a secret that is already set need not be typed again; the host checks what is required on enable.
 */
export function SecretsForm({
  schema,
  setNames,
  busy,
  onSubmit,
  idPrefix,
}: {
  schema: Json;
  setNames: string[];
  busy: boolean;
  onSubmit(values: Record<string, string>): void;
  idPrefix: string;
}) {
  const [draft, setDraft] = useState<Json>({});
  const [generation, setGeneration] = useState(0);
  const { required: _required, ...optional } = schema;
  const uiSchema = useMemo(() => {
    const ui: UiSchema = {};
    for (const name of propertiesOf(schema)) {
      const set = setNames.includes(name);
      ui[name] = {
        "ui:widget": "password",
        "ui:autocomplete": "new-password",
        "ui:placeholder": set ? "set — type a new value to replace it" : "not set",
      };
    }
    return ui;
  }, [schema, setNames]);

  const submit = (event: IChangeEvent) => {
    const typed = Object.fromEntries(
      Object.entries((event.formData ?? {}) as Json).filter(([, v]) => typeof v === "string" && v !== ""),
    ) as Record<string, string>;
    onSubmit(typed);
    // The typed values leave the page's state at once: a new, empty form.
    setDraft({});
    setGeneration((n) => n + 1);
  };

  return (
    <Form
      key={generation}
      schema={optional as RJSFSchema}
      uiSchema={uiSchema}
      validator={cspSafeValidator}
      formData={draft}
      idPrefix={idPrefix}
      onChange={(event: IChangeEvent) => setDraft((event.formData ?? {}) as Json)}
      onSubmit={submit}
      showErrorList={false}
      noHtml5Validate
      disabled={busy}
    >
      <button type="submit" className="button primary" disabled={busy}>
        {busy ? "Saving…" : "Save secrets"}
      </button>
    </Form>
  );
}
