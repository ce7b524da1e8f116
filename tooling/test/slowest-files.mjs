// Vitest reporter: after the run, the 15 slowest test files, each with the time it took as a
// whole (environment, set-up, import and tests) and how much of it was importing. CI passes it
// beside the default reporter, so each run says where the test phase went.
const SHOWN = 15;

const seconds = (ms) => (ms / 1000).toFixed(1).padStart(6);

export default class SlowestFiles {
  onTestRunEnd(testModules) {
    const rows = testModules.map((m) => {
      const d = m.diagnostic();
      const importing = d.collectDuration + d.setupDuration + d.environmentSetupDuration;
      return { name: m.relativeModuleId, total: importing + d.prepareDuration + d.duration, importing };
    });
    rows.sort((a, b) => b.total - a.total);
    console.log(`\nThe ${Math.min(SHOWN, rows.length)} slowest test files (whole file, of which importing):`);
    for (const r of rows.slice(0, SHOWN))
      console.log(`${seconds(r.total)} s ${seconds(r.importing)} s  ${r.name}`);
  }
}
