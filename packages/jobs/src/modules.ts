import type { TJobQueue } from "@posture/platform";
import type { TJobModule, TJobRegistry, TPeriodicTask, TScheduledJobQueue } from "./types";

/**
 * One registry from every package's job module. Two modules defining the same job name is a
 * wiring mistake that would silently run the wrong handler: it throws instead.
 */
export function combineJobModules<D>(modules: readonly TJobModule<D>[], deps: D): TJobRegistry {
  const registry: TJobRegistry = {};
  for (const module of modules) {
    for (const [name, definition] of Object.entries(module.definitions(deps))) {
      if (Object.hasOwn(registry, name)) throw new Error(`job "${name}" is defined by two job modules`);
      registry[name] = definition;
    }
  }
  return registry;
}

/** Every module's periodic tasks, in module order. */
export function periodicTasksOf<D>(modules: readonly TJobModule<D>[]): TPeriodicTask[] {
  return modules.flatMap((m) => m.periodic ?? []);
}

function isScheduled(jobs: TJobQueue): jobs is TScheduledJobQueue {
  return typeof (jobs as Partial<TScheduledJobQueue>).scheduleRepeating === "function";
}

export type TPeriodicOptions = {
  /**
   * Durable queue: how often to check that Redis still holds every schedule, and put back the
   * ones it lost (a Redis restarted empty, a flushed database). Default 30 s.
   */
  checkEveryMs?: number;
  /** Called when a lost schedule is put back, or a check fails (Redis still away: tried next time). */
  onRestored?: (schedulerIds: string[]) => void;
  onError?: (err: Error) => void;
};

/**
 * Starts the periodic tasks. On the durable queue the schedule lives in Redis (replicas upserting
 * it at start-up leave one), and a self-check puts back any schedule Redis lost while the process
 * ran; in-process, a timer per task enqueues the same jobs, with a job id per interval so a slow
 * run is never doubled. Returns a stop function.
 */
export async function startPeriodicTasks(
  jobs: TJobQueue,
  tasks: readonly TPeriodicTask[],
  opts: TPeriodicOptions = {},
): Promise<() => void> {
  if (isScheduled(jobs)) {
    const schedule = (t: TPeriodicTask) =>
      jobs.scheduleRepeating(t.name, {}, { schedulerId: t.schedulerId, everyMs: t.everyMs });
    for (const t of tasks) await schedule(t);
    // The single queue of older releases keeps its schedules until removed: they would run twice.
    await jobs.retireLegacySchedules?.().catch((err: unknown) => {
      opts.onError?.(err instanceof Error ? err : new Error(String(err)));
    });
    // Upserting only what is missing: re-upserting a live schedule would move its next run.
    let checking = false;
    const check = async () => {
      if (checking) return;
      checking = true;
      try {
        const restored: string[] = [];
        for (const t of tasks) {
          if (await jobs.hasSchedule(t.name, t.schedulerId)) continue;
          await schedule(t);
          restored.push(t.schedulerId);
        }
        if (restored.length > 0) opts.onRestored?.(restored);
      } catch (err) {
        opts.onError?.(err instanceof Error ? err : new Error(String(err)));
      } finally {
        checking = false;
      }
    };
    const timer = setInterval(() => void check(), opts.checkEveryMs ?? 30_000);
    timer.unref();
    return () => clearInterval(timer);
  }
  const timers = tasks.map((t) => {
    const tick = () => {
      const bucket = Math.floor(Date.now() / t.everyMs);
      // A sweep that cannot be queued now is simply tried at the next tick.
      void jobs.enqueue(t.name, {}, { jobId: `${t.schedulerId}-${bucket}` }).catch(() => {});
    };
    tick();
    const timer = setInterval(tick, t.everyMs);
    timer.unref();
    return timer;
  });
  return () => timers.forEach(clearInterval);
}
