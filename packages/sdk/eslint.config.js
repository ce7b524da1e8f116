import config from "@posture/eslint-config";

// The examples are integrators' programs, shown verbatim in the README: they print.
export default [...config, { files: ["examples/**"], rules: { "no-console": "off" } }];
