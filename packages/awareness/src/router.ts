import { router } from "@posture/platform";
import { getMyScore } from "./procedures/get-awareness-me";
import { listScores } from "./procedures/list-scores";

export const awarenessRouter = router({
  awareness: router({ scores: router({ list: listScores }), me: router({ get: getMyScore }) }),
});
