// Act once, everywhere (issue 17, item 5): filled in by that work.
export type TPlanRemediation = (...args: never[]) => Promise<unknown>;
