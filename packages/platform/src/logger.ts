import pino, { type Logger } from "pino";

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

export function createLogger(level: string): Logger {
  return pino({ level, redact: { paths: LOG_REDACT, censor: "[redacted]" } });
}
