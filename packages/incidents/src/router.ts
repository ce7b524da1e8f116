import { router } from "@posture/platform";
import { createIncident } from "./procedures/create-incident";
import { createIncidentTicket } from "./procedures/create-incident-ticket";
import { exportIncidentReport } from "./procedures/export-incident";
import { getIncident } from "./procedures/get-incident";
import { getSettings, updateSettings } from "./procedures/incident-settings";
import { listIncidents } from "./procedures/list-incidents";
import { listSuggestions } from "./procedures/list-suggestions";
import { updateIncident } from "./procedures/update-incident";

// `suggestions` is declared before `get` so that /incidents/suggestions is never read as an id.
export const incidentsRouter = router({
  incidents: router({
    suggestions: router({ list: listSuggestions }),
    list: listIncidents,
    get: getIncident,
    create: createIncident,
    update: updateIncident,
    export: exportIncidentReport,
    ticket: router({ create: createIncidentTicket }),
  }),
  incidentSettings: router({ get: getSettings, update: updateSettings }),
});
