import type { TJobQueue } from "@posture/platform";

/**
 * A job queue that records what the remediation routes enqueue and runs nothing: the HTTP tests
 * check the request's moves and the job it queued; the executor has its own tests.
 */
export function recordingJobs(): { jobs: TJobQueue; queued: Array<{ name: string; jobId?: string }> } {
  const queued: Array<{ name: string; jobId?: string }> = [];
  const jobs: TJobQueue = {
    enqueue: async (name, _data, opts) => {
      queued.push({ name, ...(opts?.jobId ? { jobId: opts.jobId } : {}) });
    },
    runAndWait: async () => {
      throw new Error("not in this test");
    },
    ping: async () => {},
    close: async () => {},
  };
  return { jobs, queued };
}
