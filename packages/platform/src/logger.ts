import pino, { type DestinationStream, type Logger } from "pino";

// Secrets never reach a log line: credentials in headers, and any field named like one.
export const LOG_REDACT = [
  "req.headers.authorization",
  "req.headers.cookie",
  'res.headers["set-cookie"]',
  "*.password",
  "*.token",
  "*.secret",
  "*.key",
  "*.credentials",
];

/** JSON lines on stdout, or on `destination` (tests that read what was logged). */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options = { level, redact: { paths: LOG_REDACT, censor: "[redacted]" } };
  return destination ? pino(options, destination) : pino(options);
}
