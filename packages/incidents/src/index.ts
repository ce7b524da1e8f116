export { incidentsRouter } from "./router";
export { INCIDENT_MOVES, canMove } from "./services/transitions";
export { renderIncidentReport, regulatoryClocks, type TIncidentReportInput } from "./report/incident-report";
export { incidentReport } from "./services/report";
