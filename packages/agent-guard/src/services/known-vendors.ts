// Publishers a security team would recognise without a review. Maintained by hand: a vendor is
// matched on its publisher name or on a domain it publishes from (Google's and Microsoft's own
// verification is honoured separately). Keep it sorted; add vendors with their common names.
const KNOWN_VENDORS = [
  "adobe",
  "anthropic",
  "asana",
  "atlassian",
  "box",
  "calendly",
  "docusign",
  "dropbox",
  "figma",
  "github",
  "gitlab",
  "google",
  "grammarly",
  "hubspot",
  "intercom",
  "loom",
  "microsoft",
  "miro",
  "monday.com",
  "notion",
  "okta",
  "openai",
  "salesforce",
  "slack",
  "smartsheet",
  "trello",
  "zendesk",
  "zoom",
];

const normalise = (s: string) => s.trim().toLowerCase();

/** A known vendor: the publisher's name or domain names one of the list (`slack.com`, `Slack Technologies`). */
export function isKnownVendor(publisher: string): boolean {
  const p = normalise(publisher);
  if (p === "") return false;
  return KNOWN_VENDORS.some(
    (v) => p === v || p.startsWith(`${v} `) || p === `${v}.com` || p.endsWith(`.${v}.com`),
  );
}
