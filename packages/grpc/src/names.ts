import { type Enum, type Field, protobuf, type Root, type Type } from "./protobuf.js";

/**
 * Names the outside world sees: JSON field names and the names of message
 * and enum types in schemas (`$defs`).
 */

/**
 * A field's JSON name, as protoc computes `json_name` (the proto3 JSON
 * mapping): an explicit `json_name` option, else the name with each `_`
 * dropped and the letter after it upper-cased (`user_name` → `userName`).
 */
export function jsonName(field: Field): string {
  const explicit = field.options?.json_name;
  if (typeof explicit === "string" && explicit !== "") return explicit;
  let out = "";
  let upper = false;
  for (const char of field.name) {
    if (char === "_") upper = true;
    else {
      out += upper ? char.toUpperCase() : char;
      upper = false;
    }
  }
  return out;
}

/** Every message and enum type of `root`, in a stable order (by full name). */
export function allTypes(root: Root): (Type | Enum)[] {
  const found: (Type | Enum)[] = [];
  const walk = (namespace: protobuf.NamespaceBase) => {
    for (const nested of namespace.nestedArray) {
      if (nested instanceof protobuf.Type || nested instanceof protobuf.Enum) found.push(nested);
      if (nested instanceof protobuf.Namespace || nested instanceof protobuf.Type) walk(nested);
    }
  };
  walk(root);
  return found.sort((a, b) => (a.fullName < b.fullName ? -1 : a.fullName > b.fullName ? 1 : 0));
}

/** `Outer.Inner` → `Outer_Inner`: the type's name inside its package. */
function localName(type: Type | Enum): string {
  const parts = [type.name];
  for (let parent = type.parent; parent instanceof protobuf.Type; parent = parent.parent) parts.unshift(parent.name);
  return parts.join("_");
}

/**
 * The `$defs` name of every message and enum type: its name inside its
 * package (`Point`, nested `Outer_Inner`) when no other type of the
 * definition has that name, else its full name with `.` as `_`
 * (`routeguide_Point`). Computed over every type of the definition, so a
 * type's name does not depend on which tools use it. Names are identifiers,
 * so environments can use them as type names as they are.
 */
export function typeNames(root: Root): Map<string, string> {
  const types = allTypes(root);
  const counts = new Map<string, number>();
  for (const type of types) counts.set(localName(type), (counts.get(localName(type)) ?? 0) + 1);
  const names = new Map<string, string>();
  const taken = new Set<string>();
  for (const type of types) {
    const local = localName(type);
    let name = counts.get(local) === 1 ? local : type.fullName.slice(1).replace(/\./g, "_");
    while (taken.has(name)) name = `${name}_`;
    taken.add(name);
    names.set(type.fullName, name);
  }
  return names;
}
