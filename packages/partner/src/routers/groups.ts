import { router } from "@posture/platform";
import type { TPartnerDeps } from "../deps";

export const groupsRouter = (_deps: TPartnerDeps) => router({});
