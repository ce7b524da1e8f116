export {
  startFakeJira,
  isValidAdf,
  FAKE_JIRA_WORKFLOW,
  type TFakeJira,
  type TFakeJiraIssue,
  type TFakeJiraOptions,
  type TFakeJiraStatus,
} from "./fake-jira";
export { startFakeGithub, type TFakeGithub, type TFakeGithubOptions } from "./fake-github";
export {
  startFakeLinear,
  type TFakeLinear,
  type TFakeLinearOptions,
  type TFakeLinearTeam,
} from "./fake-linear";
export type { TFakeTracker, TFault, TRecordedRequest } from "./fake-server";
export { sampleFinding } from "./fixtures";
export {
  jiraIssueUpdated,
  githubIssueEvent,
  linearIssueUpdate,
  type TSignedDelivery,
  type TTrackerAction,
} from "./webhook-senders";
