import { readEnv } from "./env";
import { createLogger, startGateway } from "./server";

const env = readEnv();
const log = createLogger(env.LOG_LEVEL);

const gateway = await startGateway({ env, log });
log.info({ url: gateway.url }, "gateway listening");

let stopping = false;
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, "shutting down: finishing in-flight requests");
    const force = setTimeout(() => process.exit(1), 25_000);
    force.unref();
    gateway.close().then(
      () => process.exit(0),
      (err: unknown) => {
        log.error({ err }, "shutdown failed");
        process.exit(1);
      },
    );
  });
}
