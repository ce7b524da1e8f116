import { router } from "@posture/platform";
import type { TPartnerDeps } from "../deps";

export const actionsRouter = (_deps: TPartnerDeps) => router({});
