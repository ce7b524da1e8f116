// `pnpm test`'s first step: the integration tests' prerequisites (prerequisites.mjs), checked before
// vitest starts. Failing inside vitest's global set-up, the same message came below a red "No test
// files found" that read as the cause; here it is the only thing printed.
import { missingPrerequisites } from "./prerequisites.mjs";

const missing = await missingPrerequisites();
if (missing.length > 0) {
  process.stderr.write(
    `The integration tests need:\n  - ${missing.join("\n  - ")}\n` +
      "`bash .ci/run` starts PostgreSQL and Redis and installs the PDF tools on Debian.\n" +
      "The unit tests alone need none of it: pnpm vitest run --project unit\n",
  );
  process.exit(1);
}
