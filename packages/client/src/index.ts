// @posture/client: the tRPC API for UI teams. Types only from the gateway (erased at build time,
// so nothing of the server reaches a bundle); the procedure keys are the public contract
// (docs/architecture.md, "Procedure keys").
import type { inferRouterInputs, inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@posture/gateway";

export type { AppRouter } from "@posture/gateway";
export {
  createPostureClient,
  errorCodeOf,
  trpcEndpoint,
  type TPostureClient,
  type TPostureClientError,
  type TPostureClientOptions,
} from "./create-client";
export { MAX_BATCH_ITEMS, MAX_URL_LENGTH } from "./limits";
export type { TConditionalOptions } from "./conditional";
export { isTRPCClientError, TRPCClientError } from "@trpc/client";

/** Every procedure's input, by key: `RouterInputs["findings"]["list"]`. */
export type RouterInputs = inferRouterInputs<AppRouter>;
/** Every procedure's output, by key: `RouterOutputs["posture"]["breakdown"]["get"]`. */
export type RouterOutputs = inferRouterOutputs<AppRouter>;
