/**
 * A form generated from a JSON Schema (a service's or module's config or secrets schema, as its adapter declares it)
 * with rjsf: nothing about a particular adapter is written by hand here.
 */
import Form, { type IChangeEvent } from "@rjsf/core";
import type { RJSFSchema, UiSchema } from "@rjsf/utils";
import { useMemo, useState } from "react";
import { cspSafeValidator } from "../forms/csp-safe-validator";
import { propertiesOf } from "../forms/schema-fields";

type Json = Record<string, unknown>;

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
  onSubmit(values: Json): void;
  idPrefix: string;
}) {
  const [draft, setDraft] = useState<Json>({});
  const [generation, setGeneration] = useState(0);
  const { required: _required, ...optional } = schema;
  const uiSchema = useMemo(() => {
    const ui: UiSchema = {};
    for (const name of propertiesOf(schema)) {
      const set = setNames.includes(name);
      ui[name] = hiddenInputs(
        (schema.properties as Json)[name] as Json,
        set ? "set — type a new value to replace it" : "not set",
      );
    }
    return ui;
  }, [schema, setNames]);

  const submit = (event: IChangeEvent) => {
    const typed = typedValues((event.formData ?? {}) as Json) ?? {};
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

/** Every string field of a secret (a token, or a username and password pair) as a password input. */
function hiddenInputs(schema: Json, placeholder: string): UiSchema {
  if (schema.type === "object") {
    const ui: UiSchema = {};
    for (const name of propertiesOf(schema))
      ui[name] = hiddenInputs((schema.properties as Json)[name] as Json, placeholder);
    return ui;
  }
  return { "ui:widget": "password", "ui:autocomplete": "new-password", "ui:placeholder": placeholder };
}

/** What the operator typed: non-empty strings, and objects (a basic pair) with at least one; undefined for nothing. */
function typedValues(value: Json): Json | undefined {
  const typed: Json = {};
  for (const [name, field] of Object.entries(value)) {
    if (typeof field === "string" && field !== "") typed[name] = field;
    else if (typeof field === "object" && field !== null && !Array.isArray(field)) {
      const nested = typedValues(field as Json);
      if (nested !== undefined) typed[name] = nested;
    }
  }
  return Object.keys(typed).length > 0 ? typed : undefined;
}
