export { closeTicket, createTicket } from "./create-ticket";
export { ZTicketingConfigInput, DEFAULT_BASE_URLS, type TTicketingConfigInput } from "./config";
export { ticketTitle, markdownDescription, adfDescription } from "./content";
export { JIRA_FALLBACK_STATUS } from "./providers/jira";
export {
  TICKET_PROVIDER_IDS,
  type TTicketProvider,
  type TTicketingConfig,
  type TTicketFinding,
  type TTicket,
  type TCreateTicketOptions,
} from "./types";
