export { incidentsRouter } from "./router";
export { INCIDENT_MOVES, canMove } from "./services/transitions";
export { renderIncidentReport, regulatoryClocks, type TIncidentReportInput } from "./report/incident-report";
export { incidentReport } from "./services/report";
export { listIncidents } from "./services/incidents";
export { ZListIncidentsInput, ZListIncidentsOutput } from "./procedures/list-incidents.types";
export { incidentJobs, INCIDENT_DEADLINES_JOB } from "./jobs";
export { announceApproachingDeadlines } from "./services/deadline-notices";
export {
  CLOCKS,
  deadlinesOf,
  REGULATIONS,
  type TDeadline,
  type TDeadlineStatus,
  type TRegulation,
} from "./services/deadlines";
