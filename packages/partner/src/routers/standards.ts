import { router } from "@posture/platform";
import type { TPartnerDeps } from "../deps";

export const standardsRouter = (_deps: TPartnerDeps) => router({});
