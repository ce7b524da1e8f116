import { SOURCE_KITS } from "./kits";
import { describeConformance } from "./suite";

// The source kit's conformance suite over every real source's adapter and fake (kits.ts): paging,
// throttling with Retry-After, token expiry, change feeds against a full scan, writes with
// pre-images and undo. A check a source cannot pass for a stated reason is skipped with it.

for (const kit of SOURCE_KITS) describeConformance(kit);
