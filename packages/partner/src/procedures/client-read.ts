import { actorOf, procedure, type TMeta } from "@posture/platform";
import type { z } from "zod";
import type { TClientRead, TClientReadName } from "../client-reads";
import { readClient } from "../services/client-reads";
import { ZClientOrgId } from "./client-read.types";

type TPartnerInput<T extends TClientRead> = z.ZodType<
  z.output<T["input"]> & { orgId: string },
  z.input<T["input"]> & { orgId: string }
>;
type TClientOutput<T extends TClientRead> = z.ZodType<z.output<T["output"]>, z.input<T["output"]>>;

/**
 * One partner read of a managed client: `{orgId}` plus the client procedure's input, answered
 * with the client procedure's output — the same schemas, so the same types and the same JSON.
 * Partner auth (session or partner API key), enterprise+, and the client procedure's role.
 */
export function clientReadProcedure<T extends TClientRead>(name: TClientReadName, read: T, meta: TMeta) {
  const input = read.input.extend({ orgId: ZClientOrgId }) as unknown as TPartnerInput<T>;
  return (
    procedure({ auth: "partner", plan: "enterprise", ...(read.role ? { role: read.role } : {}) })
      .meta(meta)
      .input(input)
      .output(read.output as TClientOutput<T>)
      // The read returns z.input<T["output"]> (TClientRead); TypeScript cannot relate that to tRPC's
      // deferred output type inside this generic, so the result is cast. The procedure's output
      // type comes from `.output(...)` alone, and the output schema checks the value at run time.
      .query(
        ({ ctx, input: q }) =>
          readClient(
            ctx.db,
            {
              partnerOrgId: ctx.principal.org.id,
              actor: actorOf(ctx.principal),
              viewer: { role: ctx.principal.role },
              ...(ctx.dataWrites ? { dataWrites: ctx.dataWrites } : {}),
            },
            name,
            read,
            q,
          ) as Promise<never>,
      )
  );
}
