import { router } from "@posture/platform";
import type { TPartnerDeps } from "../deps";

export const clientsRouter = (_deps: TPartnerDeps) => router({});
