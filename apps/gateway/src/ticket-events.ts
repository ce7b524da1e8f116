import express, { type NextFunction, type Request, type Response, type Router } from "express";
import { asUnnamedWrite } from "@posture/platform";
import { receiveTicketEvent } from "@posture/posture";
import type { TGatewayDeps } from "./deps";
import { BODY_LIMIT_BYTES } from "./middleware/body";

export const TICKET_EVENTS_PATH = "/api/integrations/ticketing/events/:hookId";

/**
 * POST /api/integrations/ticketing/events/{hookId}: a tracker's webhook. Its signature is an HMAC
 * of the raw bytes, so this route reads the body raw (any content type, the API's body limit)
 * before the JSON parser would replace it; the tracker's signature is its only credential.
 */
export function ticketEventRoutes(deps: TGatewayDeps): Router {
  const r = express.Router();
  r.post(
    TICKET_EVENTS_PATH,
    express.raw({ type: () => true, limit: BODY_LIMIT_BYTES }),
    async (req: Request, res: Response, next: NextFunction) => {
      try {
        const rawBody = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
        // Whose tickets it moves is known only once it has run: its audit rows say (data-epochs.ts).
        const result = await asUnnamedWrite(deps.dataWrites, () =>
          receiveTicketEvent(
            deps.db.db,
            { hookId: String(req.params.hookId), headers: req.headers, rawBody },
            { runtime: deps.runtime, jobs: deps.jobs },
          ),
        );
        res.status(200).json(result);
      } catch (err) {
        next(err);
      }
    },
  );
  return r;
}
