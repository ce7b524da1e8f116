import { setTimeout as sleep } from "node:timers/promises";
import { queryRows, type Db } from "@posture/db";
import { sql } from "drizzle-orm";
import type { TJobDefinition } from "../types";

// Tables a test creates in its own database: every start of the handler is logged in
// job_runs; its effect lands in job_effects once per job id whatever the number of runs.
export async function createRecordingTables(db: Db): Promise<void> {
  await db.execute(sql`CREATE TABLE IF NOT EXISTS job_runs (
    id serial PRIMARY KEY, job_id text NOT NULL, worker text NOT NULL, attempt int NOT NULL)`);
  await db.execute(sql`CREATE TABLE IF NOT EXISTS job_effects (
    job_id text PRIMARY KEY, payload jsonb NOT NULL)`);
}

export type TRecordingJobOptions = {
  worker: string;
  /** Time spent after the effect is written: the window in which a test can kill the worker. */
  sleepMs: number;
  onStarted?: (jobId: string) => void;
};

/** An idempotent job: its effect is keyed by the job id, so running it again changes nothing. */
export function recordingJob(db: Db, opts: TRecordingJobOptions): TJobDefinition {
  return {
    attempts: 1,
    backoffMs: 100,
    handler: async (data, { jobId, attempt }) => {
      await db.execute(
        sql`INSERT INTO job_runs (job_id, worker, attempt) VALUES (${jobId}, ${opts.worker}, ${attempt})`,
      );
      await db.execute(
        sql`INSERT INTO job_effects (job_id, payload) VALUES (${jobId}, ${JSON.stringify(data)}::jsonb)
            ON CONFLICT (job_id) DO NOTHING`,
      );
      opts.onStarted?.(jobId);
      await sleep(opts.sleepMs);
      return { jobId };
    },
  };
}

export async function countRows(db: Db, table: "job_runs" | "job_effects", jobId: string): Promise<number> {
  const rows = await queryRows<{ n: number }>(
    db,
    sql`SELECT count(*)::int AS n FROM ${sql.identifier(table)} WHERE job_id = ${jobId}`,
  );
  return rows[0]?.n ?? 0;
}

export async function runsOf(db: Db, jobId: string): Promise<{ worker: string; attempt: number }[]> {
  return queryRows(db, sql`SELECT worker, attempt FROM job_runs WHERE job_id = ${jobId} ORDER BY id`);
}
