// Partner-scoped reads of a managed client (issue 17, item 1): filled in by that work.
export type TClientReads = Record<string, never>;
