/**
 * Runs `load` on the first call and hands every later call the same promise: a tenant-wide read
 * (workspace, directory) is fetched once per adapter, and a failure is not retried behind the caller's back.
 */
export function once<T>(load: () => Promise<T>): () => Promise<T> {
  let promise: Promise<T> | null = null;
  return () => (promise ??= load());
}
