export type TJobContext = { jobId: string; attempt: number };

/** A job handler must be idempotent: a retried or re-delivered job may run again. */
export type TJobHandler = (data: unknown, ctx: TJobContext) => Promise<unknown>;

export type TJobDefinition = {
  handler: TJobHandler;
  /** Total tries, the first included. */
  attempts: number;
  /** Base of the exponential back-off between tries. */
  backoffMs: number;
};

export type TJobRegistry = Record<string, TJobDefinition>;
