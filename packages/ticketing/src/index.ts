export { closeTicket, createIssue, createTicket } from "./create-ticket";
export { ZTicketingConfigInput, DEFAULT_BASE_URLS, type TTicketingConfigInput } from "./config";
export {
  ticketTitle,
  markdownDescription,
  adfDescription,
  adfComment,
  findingDraft,
  subjectDraft,
  type TDescriptionLine,
} from "./content";
export { JIRA_FALLBACK_STATUS } from "./providers/jira";
export {
  TICKET_PROVIDER_IDS,
  type TTicketProvider,
  type TTicketingConfig,
  type TTicketFinding,
  type TTicket,
  type TCreateTicketOptions,
  type TCloseComment,
  type TCloseResult,
  type TIssueDraft,
} from "./types";
export {
  fileSubjectTicket,
  ZSubjectTicketOutput,
  type TSubjectKind,
  type TSubjectTicket,
} from "./subject-tickets";
