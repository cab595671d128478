/** The host itself: liveness and whether processes can run. */
import { type Static, Type } from "@sinclair/typebox";

export const Health = Type.Object({
  status: Type.Union([Type.Literal("ok"), Type.Literal("degraded")]),
  version: Type.String(),
  reasons: Type.Optional(Type.Array(Type.String())),
});

export type Health = Static<typeof Health>;
