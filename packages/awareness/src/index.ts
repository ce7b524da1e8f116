export { awarenessRouter } from "./router";
export { leaderboard, myAwareness, collectSignals } from "./services/awareness";
export { scoreOf, rank, type TSignals, type TAwareness } from "./services/model";
