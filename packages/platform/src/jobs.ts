// The queue seen by request handlers. Implemented by @posture/jobs on BullMQ (Redis) or
// in-process for the embedded default; both run the same handlers.
export type TEnqueueOptions = {
  /** Deduplicates: a job with an id that is already queued or running is not added twice. */
  jobId?: string;
  delayMs?: number;
};

export type TJobQueue = {
  enqueue: (name: string, data: unknown, opts?: TEnqueueOptions) => Promise<void>;
  /** Queues a job and waits for its result (rejects with its error, or on timeout). */
  runAndWait: <R>(name: string, data: unknown, opts: { jobId: string; timeoutMs: number }) => Promise<R>;
  /**
   * Ends every runAndWait now waiting as its timeout would (JobTimeoutError); the jobs carry on.
   * A shutting-down gateway calls it so that a request waiting on a long job gets its answer
   * (POST /sync: 202 with the scan id) before the process exits.
   */
  stopWaiting?: () => void;
  /**
   * The embedded queue: resolves once no job of this process is queued, delayed or running (or
   * `withinMs` has passed). Tests wait on it before they arrange rows a background job rewrites.
   */
  settled?: (withinMs: number) => Promise<void>;
  ping: () => Promise<void>;
  /** Jobs per state (waiting, active, delayed, failed…), for the metrics endpoint. */
  depth?: () => Promise<Record<string, number>>;
  close: () => Promise<void>;
};
