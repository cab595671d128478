/** The active environment's answers for clients: its runtime reference and the types of the tools. */
import { type Static, Type } from "@sinclair/typebox";

/** `GET /environment/types`: all callable tools, or those the (repeatable) filters name. */
export const TypesQuery = Type.Object({
  serviceId: Type.Optional(
    Type.Array(Type.String(), { description: "Only the callable tools of this service (repeatable)" }),
  ),
  tool: Type.Optional(Type.Array(Type.String(), { description: "Only this tool, as `serviceId/toolId` (repeatable)" })),
});

export type TypesQuery = Static<typeof TypesQuery>;
