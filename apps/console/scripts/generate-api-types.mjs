// Writes src/api/api-schema.ts from the built host's route definitions (see api-types.mjs).
import { writeFileSync } from "node:fs";
import { hostOpenApiDocument, renderApiTypes, typesFile } from "./api-types.mjs";

writeFileSync(typesFile, await renderApiTypes(await hostOpenApiDocument()));
console.log(`wrote ${typesFile}`);
