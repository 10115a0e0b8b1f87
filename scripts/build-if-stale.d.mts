export declare const ROOT: string;
export declare function buildableWorkspaces(root?: string): string[];
export declare function staleness(dir: string, root?: string): 'missing' | 'stale' | undefined;
export declare function buildIfStale(options?: { root?: string; log?: (line: string) => void }): Promise<string[]>;
