export declare const BUILD_DIR: string;
export declare const MANIFEST: string;
export declare function changedSince(root: string, since: number): boolean;
export declare function builtCli(root: string): { entry: string; manifest: { builtFrom: number; program: unknown } } | undefined;
