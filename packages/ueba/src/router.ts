import { router } from "@posture/platform";
import { getAnomaly } from "./procedures/get-anomaly";
import { getBaseline } from "./procedures/get-baseline";
import { getHeatmap } from "./procedures/get-heatmap";
import { listAnomalies } from "./procedures/list-anomalies";

export const behaviourRouter = router({
  behavior: router({
    anomalies: router({ list: listAnomalies, get: getAnomaly }),
    heatmap: router({ get: getHeatmap }),
    baseline: router({ get: getBaseline }),
  }),
});
