export declare function workspaceRoot(from: string): string;
export declare function bundle(o: {
  appDir?: string;
  entries: string[];
  outdir?: string;
  ifStale?: boolean;
  quiet?: boolean;
}): Promise<{ built: boolean; outputs?: string[] }>;
