import type { TSourceWriter } from "../write";
import type { TDemoOptions } from "./index";

/**
 * The demo tenant's writer: each change is an overlay entry (TDemoOverlayStore) that the demo
 * adapter lays over its reads, so the next scan sees it and undo (removing the entry) brings the
 * synthetic tenant back. Keys: `perm:<fileId>:<permissionId>`, `owner:<fileId>`, `grant:<grantId>`.
 */
export function createDemoWriter(
  _opts: TDemoOptions & { overlay: NonNullable<TDemoOptions["overlay"]> },
): TSourceWriter {
  throw new Error("createDemoWriter: not built yet (issue 19, demo writer)");
}
