export declare const BUILD_OUTPUTS: readonly string[];
export declare function isBuildStale(root: string): boolean;
export declare function recordBuild(root: string, startedAt: number): void;
