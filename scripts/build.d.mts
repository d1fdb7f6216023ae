export declare function buildAll(root: string): Promise<void>;
