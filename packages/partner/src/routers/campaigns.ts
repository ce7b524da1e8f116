import { router } from "@posture/platform";
import type { TPartnerDeps } from "../deps";

export const campaignsRouter = (_deps: TPartnerDeps) => router({});
