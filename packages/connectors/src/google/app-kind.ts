import { type TAppGrant } from "../types";

// Names of assistants and agents that read or act on workspace data. Matched as whole words in
// the app's display name, so "Claude" matches "Claude for Sheets" but "Geminiware" does not.
const AI_AGENT_NAMES = [
  "chatgpt",
  "openai",
  "claude",
  "anthropic",
  "gemini",
  "copilot",
  "perplexity",
  "otter.ai",
  "fireflies",
  "jasper",
  "notion ai",
  "mistral",
  "cohere",
  "writer.com",
  "glean",
  "zapier ai",
  "read.ai",
];

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const AI_AGENT_PATTERN = new RegExp(
  `(^|[^a-z0-9])(${AI_AGENT_NAMES.map(escape).join("|")})([^a-z0-9]|$)`,
  "i",
);

export function isAiAgentName(name: string): boolean {
  return AI_AGENT_PATTERN.test(name);
}

/** Classifies an OAuth grant by what is known of its client: service account, AI agent or plain app. */
export function classifyApp(opts: {
  clientId: string;
  label: string;
  isServiceAccount?: boolean;
}): TAppGrant["kind"] {
  if (
    opts.isServiceAccount ||
    /\.gserviceaccount\.com$/i.test(opts.clientId) ||
    /\.gserviceaccount\.com$/i.test(opts.label)
  ) {
    return "service_account";
  }
  return isAiAgentName(opts.label) ? "ai_agent" : "oauth_app";
}
