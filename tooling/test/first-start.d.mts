// Types of first-start.mjs for the TypeScript test files that import it.
import type { ChildProcess } from "node:child_process";

export const START_ARGS: string[];
export const FIRST_START_FILES: string[];
export function serviceEnv(extra?: Record<string, string>): NodeJS.ProcessEnv;
export type TBanner = { url: string; password: string; key: string };
export function bannerOf(lines: string[]): TBanner | undefined;
export function listeningOf(lines: string[]): Array<{ url: string; pid: number }>;
export type TFirstStart = {
  /** The first start's stdout, line by line: its log and the demo banner. */
  stdout: string[];
  banner: TBanner;
  /** Its exit code after SIGTERM. */
  exitCode: number | null;
  /** From the spawn to the banner. */
  seededMs: number;
  dataDir: string;
};
export function firstStart(root?: string): Promise<TFirstStart>;
export function copyFirstStart(dataDir: string): Promise<TFirstStart>;
export type TStartedAgain = {
  proc: ChildProcess;
  /** The directory it runs in (its `.data`, unless dataDir was given): the caller removes it. */
  dir: string;
  stdout: string[];
  first: TFirstStart;
  url: string;
  listening: Array<{ url: string; pid: number }>;
};
export function startAgain(options?: {
  env?: Record<string, string>;
  args?: string[];
  dataDir?: string;
  listeners?: number;
}): Promise<TStartedAgain>;

declare module "vitest" {
  export interface ProvidedContext {
    firstStartRoot: string;
  }
}
export default function setup(project: unknown): Promise<() => Promise<void>>;
