import config from "@posture/eslint-config";

export default config;
